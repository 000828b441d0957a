//! A sandbox's network: none by default; the hosts it was granted (`host`, `*.suffix`,
//! `host:port`) through a proxy awf runs on the host, reached from inside the box over a Unix
//! socket bridged to a loopback port (`wfa __bridge`); `network: true` is the host's network.
