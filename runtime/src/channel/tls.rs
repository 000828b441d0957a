//! The run's TLS identity for the TCP transport: a self-signed certificate made for this run
//! alone (rcgen, an ECDSA P-256 key from ring), held in memory only, so that it is gone when the
//! run ends; and its SHA-256, which every launcher of the run pins. TLS 1.3 only.

use std::sync::Arc;

use rustls::pki_types::{PrivateKeyDer, PrivatePkcs8KeyDer};

use super::wire::pin_of;

/// The run's certificate as a TLS server configuration, and the pin its launchers carry.
pub struct RunCertificate {
    pub config: Arc<rustls::ServerConfig>,
    /// The SHA-256 of the certificate (DER), as 64 lowercase hex digits.
    pub pin: String,
}

/// Why the run's certificate could not be made.
#[derive(Debug, thiserror::Error)]
#[error("cannot make the run's TLS certificate: {0}")]
pub struct CertificateError(String);

impl RunCertificate {
    pub fn generate() -> Result<RunCertificate, CertificateError> {
        let made = rcgen::generate_simple_self_signed(vec!["awf".to_owned()])
            .map_err(|e| CertificateError(e.to_string()))?;
        let der = made.cert.der().clone();
        let pin = pin_of(&der);
        let key = PrivateKeyDer::Pkcs8(PrivatePkcs8KeyDer::from(made.key_pair.serialize_der()));
        let provider = Arc::new(rustls::crypto::ring::default_provider());
        let config = rustls::ServerConfig::builder_with_provider(provider)
            .with_protocol_versions(&[&rustls::version::TLS13])
            .map_err(|e| CertificateError(e.to_string()))?
            .with_no_client_auth()
            .with_single_cert(vec![der], key)
            .map_err(|e| CertificateError(e.to_string()))?;
        Ok(RunCertificate {
            config: Arc::new(config),
            pin,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_run_has_a_certificate_of_its_own() {
        let one = RunCertificate::generate().unwrap();
        let two = RunCertificate::generate().unwrap();
        assert_eq!(one.pin.len(), 64);
        assert_ne!(one.pin, two.pin);
        assert_eq!(
            pin_of(b"abc"),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
    }
}
