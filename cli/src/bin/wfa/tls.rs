//! wfa's end of the TCP transport, for an agent whose launcher file gives a route: TLS 1.3 to the
//! route's address, asking for the route's server name (which says which agent), and trusting
//! exactly one certificate, the run's, by its SHA-256 (the route's pin): no certificate
//! authority, no name check, no other server. A listener that shows another certificate (a new
//! run on the port of one that ended, a stranger) ends the handshake before a byte of the request
//! is sent.

use std::io;
use std::net::{TcpStream, ToSocketAddrs};
use std::sync::Arc;
use std::time::Duration;

use rustls::client::danger::{HandshakeSignatureValid, ServerCertVerified, ServerCertVerifier};
use rustls::crypto::CryptoProvider;
use rustls::pki_types::{CertificateDer, ServerName, UnixTime};
use rustls::{DigitallySignedStruct, SignatureScheme};

use crate::wire::{pin_of, TcpRoute};

/// A TLS connection to the run.
pub type TlsStream = rustls::StreamOwned<rustls::ClientConnection, TcpStream>;

/// Connects to the route's address, within `timeout`; the handshake happens at the first write.
pub fn connect(route: &TcpRoute, timeout: Duration) -> io::Result<TlsStream> {
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let verifier = Arc::new(Pinned {
        pin: route.pin.to_ascii_lowercase(),
        provider: provider.clone(),
    });
    let config = rustls::ClientConfig::builder_with_provider(provider)
        .with_protocol_versions(&[&rustls::version::TLS13])
        .map_err(io::Error::other)?
        .dangerous()
        .with_custom_certificate_verifier(verifier)
        .with_no_client_auth();
    let name = ServerName::try_from(route.name.clone()).map_err(|e| {
        io::Error::new(
            io::ErrorKind::InvalidInput,
            format!(
                "the launcher's server name `{}` is not valid: {e}",
                route.name
            ),
        )
    })?;
    let connection =
        rustls::ClientConnection::new(Arc::new(config), name).map_err(io::Error::other)?;
    // A name may have several addresses (IPv6 and IPv4): the first that answers.
    let mut last = io::Error::new(
        io::ErrorKind::InvalidInput,
        format!("`{}` names no address", route.address),
    );
    let mut reached = None;
    for address in route.address.to_socket_addrs()? {
        match TcpStream::connect_timeout(&address, timeout) {
            Ok(socket) => {
                reached = Some(socket);
                break;
            }
            Err(e) => last = e,
        }
    }
    let socket = reached.ok_or(last)?;
    socket.set_nodelay(true)?;
    Ok(rustls::StreamOwned::new(connection, socket))
}

/// Trusts the one certificate whose SHA-256 is `pin`, and signatures made with its key.
#[derive(Debug)]
struct Pinned {
    pin: String,
    provider: Arc<CryptoProvider>,
}

impl ServerCertVerifier for Pinned {
    fn verify_server_cert(
        &self,
        end_entity: &CertificateDer<'_>,
        _intermediates: &[CertificateDer<'_>],
        _server_name: &ServerName<'_>,
        _ocsp_response: &[u8],
        _now: UnixTime,
    ) -> Result<ServerCertVerified, rustls::Error> {
        let shown = pin_of(end_entity);
        if shown == self.pin {
            Ok(ServerCertVerified::assertion())
        } else {
            Err(rustls::Error::General(format!(
                "the listener's certificate (sha256 {shown}) is not the run's this launcher pins \
                 (sha256 {})",
                self.pin
            )))
        }
    }

    fn verify_tls12_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        rustls::crypto::verify_tls12_signature(
            message,
            cert,
            dss,
            &self.provider.signature_verification_algorithms,
        )
    }

    fn verify_tls13_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        rustls::crypto::verify_tls13_signature(
            message,
            cert,
            dss,
            &self.provider.signature_verification_algorithms,
        )
    }

    fn supported_verify_schemes(&self) -> Vec<SignatureScheme> {
        self.provider
            .signature_verification_algorithms
            .supported_schemes()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_pinned_certificate_is_trusted() {
        let pinned = Pinned {
            pin: pin_of(b"the run's"),
            provider: Arc::new(rustls::crypto::ring::default_provider()),
        };
        let name = ServerName::try_from("k2m3n4p5q6r7").unwrap();
        let check = |der: &'static [u8]| {
            pinned.verify_server_cert(&CertificateDer::from(der), &[], &name, &[], UnixTime::now())
        };
        assert!(check(b"the run's").is_ok());
        let error = check(b"another").unwrap_err().to_string();
        assert!(
            error.contains("is not the run's this launcher pins"),
            "{error}"
        );
    }

    #[test]
    fn a_route_to_nowhere_is_an_error_not_a_hang() {
        let route = TcpRoute {
            address: "127.0.0.1:1".to_owned(),
            name: "k2m3n4p5q6r7".to_owned(),
            pin: String::new(),
        };
        let error = connect(&route, Duration::from_secs(5)).unwrap_err();
        assert_eq!(error.kind(), io::ErrorKind::ConnectionRefused);
    }
}
