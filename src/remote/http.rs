//! Files over http(s), for entries that are URLs (kustomize's `IsRemoteFile`): one GET,
//! a 2xx answer's body is the file.
//!
//! ureq (blocking, rustls) rather than an async client: a build is synchronous and
//! fetches few files, and ureq brings no runtime. Beyond kustomize, which uses Go's
//! default client (no time limit, no size limit): a connect and a total time limit, a
//! size limit, and a bound on redirects. https is verified with the system's roots
//! (rustls-platform-verifier), or with the Mozilla roots built in when a Linux system has
//! none (see [`root_certs`]); `HTTPS_PROXY`/`HTTP_PROXY`/`ALL_PROXY` and `NO_PROXY` are
//! honoured.

use crate::error::RemoteProblem;
use std::time::Duration;
use ureq::tls::RootCerts;

/// The longest a connection may take to open.
pub(super) const CONNECT_TIMEOUT: Duration = Duration::from_secs(15);
/// The longest one request may take, redirects and body included.
pub(super) const TOTAL_TIMEOUT: Duration = Duration::from_secs(120);
/// The largest body accepted.
pub(super) const MAX_BYTES: u64 = 64 << 20;
/// The most redirects followed.
pub(super) const MAX_REDIRECTS: u32 = 10;

/// The client of one build.
pub(crate) fn agent() -> ureq::Agent {
    use ureq::tls::TlsConfig;
    ureq::Agent::config_builder()
        .timeout_connect(Some(CONNECT_TIMEOUT))
        .timeout_global(Some(TOTAL_TIMEOUT))
        .max_redirects(MAX_REDIRECTS)
        .http_status_as_error(false)
        .tls_config(TlsConfig::builder().root_certs(root_certs()).build())
        .proxy(ureq::Proxy::try_from_env())
        .user_agent(concat!("kbuild/", env!("CARGO_PKG_VERSION")))
        .build()
        .into()
}

/// The roots https is verified with: the system's (rustls-platform-verifier), except on a
/// Linux system that has none, where the platform verifier fails every connection ("No CA
/// certificates were loaded from the system"): a container image from scratch or an empty
/// chroot, where the static binary (tools/build-static.sh) is meant to run. There the
/// Mozilla roots built into kbuild (webpki-roots, which ureq's rustls feature links
/// anyway) verify instead. The check reads the same places the platform verifier reads
/// (rustls-native-certs: SSL_CERT_FILE, SSL_CERT_DIR, the distribution's bundle), once per
/// build and only when a build fetches a URL.
fn root_certs() -> RootCerts {
    #[cfg(target_os = "linux")]
    if rustls_native_certs::load_native_certs().certs.is_empty() {
        return RootCerts::WebPki;
    }
    RootCerts::PlatformVerifier
}

/// The body of a 2xx answer to `GET url`, within `limit` (default [`TOTAL_TIMEOUT`]).
pub(crate) fn get(
    agent: &ureq::Agent,
    url: &str,
    limit: Option<Duration>,
) -> Result<Vec<u8>, RemoteProblem> {
    let failed = |e: ureq::Error| RemoteProblem::Http(super::git::redact(&e.to_string()));
    let response = agent
        .get(url)
        .config()
        .timeout_global(Some(limit.unwrap_or(TOTAL_TIMEOUT)))
        .build()
        .call()
        .map_err(failed)?;
    let status = response.status().as_u16();
    if !(200..300).contains(&status) {
        return Err(RemoteProblem::HttpStatus(status));
    }
    response
        .into_body()
        .with_config()
        .limit(MAX_BYTES)
        .read_to_vec()
        .map_err(|e| match e {
            ureq::Error::BodyExceedsLimit(_) => {
                RemoteProblem::Http(format!("the body is larger than {MAX_BYTES} bytes"))
            }
            e => failed(e),
        })
}
