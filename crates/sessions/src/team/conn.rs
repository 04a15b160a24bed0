//! A connection to the team database, as libpq users expect to give it: a URL
//! (`postgres://user:pass@host:port/db?sslmode=…`) or `key=value` words, the `PG*` variables for
//! what it leaves out, the password file (`.pgpass`, `PGPASSFILE`) when no password is given,
//! and `sslmode` from `disable` to `verify-full`. Errors name the server, never the password.
use std::path::{Path, PathBuf};
use std::str::FromStr;
use std::sync::Arc;
use std::time::Duration;

use postgres::config::{Host, SslMode};
use postgres::error::SqlState;
use postgres::{Client, Config, NoTls};
use rustls::client::danger::{HandshakeSignatureValid, ServerCertVerified, ServerCertVerifier};
use rustls::pki_types::{CertificateDer, ServerName, UnixTime};
use rustls::{DigitallySignedStruct, RootCertStore, SignatureScheme};

use crate::env::Env;
use crate::error::{Error, ErrorCode, Result};

/// How TLS is used, as libpq's `sslmode` says.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TlsMode {
    Disable,
    /// `allow` and `prefer`: TLS when the server offers it, the certificate unchecked.
    Prefer,
    /// TLS or nothing, the certificate unchecked (checked as `verify-ca` when a root certificate
    /// file is there, as libpq does).
    Require,
    /// The certificate must chain to a trusted root.
    VerifyCa,
    /// …and name the host connected to.
    VerifyFull,
}

impl TlsMode {
    fn parse(s: &str) -> Result<TlsMode> {
        Ok(match s {
            "disable" => TlsMode::Disable,
            "allow" | "prefer" => TlsMode::Prefer,
            "require" => TlsMode::Require,
            "verify-ca" => TlsMode::VerifyCa,
            "verify-full" => TlsMode::VerifyFull,
            _ => {
                return Err(Error::validation(format!(
                    "sslmode must be disable, allow, prefer, require, verify-ca or verify-full, got '{s}'"
                )))
            }
        })
    }
}

/// Where and how to connect: everything resolved, the password held apart so no message shows it.
pub struct Target {
    config: Config,
    tls: TlsMode,
    root_cert: Option<PathBuf>,
    password: Option<String>,
    /// `user@host:port/db`, for messages.
    name: String,
}

/// The parameters this module reads itself, which rust-postgres' parser would reject.
const OURS: &[&str] = &["sslmode", "sslrootcert", "passfile"];

/// Splits off our parameters from a URL's query or from `key=value` words.
fn split_ours(conn: &str) -> (String, Vec<(String, String)>) {
    let mut ours = Vec::new();
    if conn.starts_with("postgres://") || conn.starts_with("postgresql://") {
        let Some((base, query)) = conn.split_once('?') else {
            return (conn.to_string(), ours);
        };
        let mut kept = Vec::new();
        for pair in query.split('&').filter(|p| !p.is_empty()) {
            let (k, v) = pair.split_once('=').unwrap_or((pair, ""));
            if OURS.contains(&k) {
                ours.push((k.to_string(), percent_decode(v)));
            } else {
                kept.push(pair);
            }
        }
        let rest = if kept.is_empty() {
            base.to_string()
        } else {
            format!("{base}?{}", kept.join("&"))
        };
        (rest, ours)
    } else {
        let mut kept = Vec::new();
        for word in conn.split_whitespace() {
            match word.split_once('=') {
                Some((k, v)) if OURS.contains(&k) => {
                    ours.push((k.to_string(), v.trim_matches('\'').to_string()))
                }
                _ => kept.push(word),
            }
        }
        (kept.join(" "), ours)
    }
}

/// `url` with `:port` after each of its hosts that names none (libpq's PGPORT); other text as is.
fn with_port(url: &str, port: &str) -> String {
    let Some((scheme, after)) = url.split_once("://") else {
        return url.to_string();
    };
    let end = after.find(['/', '?']).unwrap_or(after.len());
    let (authority, path) = after.split_at(end);
    let (user, hosts) = match authority.rfind('@') {
        Some(at) => authority.split_at(at + 1),
        None => ("", authority),
    };
    let hosts: Vec<String> = (hosts.split(','))
        .map(|h| {
            let named = match h.rfind(']') {
                Some(close) => h[close..].contains(':'),
                None => h.contains(':'),
            };
            match named || h.is_empty() {
                true => h.to_string(),
                false => format!("{h}:{port}"),
            }
        })
        .collect();
    format!("{scheme}://{user}{}{path}", hosts.join(","))
}

fn percent_decode(s: &str) -> String {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        let hex = |c: u8| (c as char).to_digit(16);
        if b[i] == b'%' && i + 2 < b.len() {
            if let (Some(h), Some(l)) = (hex(b[i + 1]), hex(b[i + 2])) {
                out.push((h * 16 + l) as u8);
                i += 3;
                continue;
            }
        }
        out.push(b[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

impl Target {
    /// Resolves `conn` (URL or `key=value` words) with the `PG*` variables of `env` and the
    /// password file. An unreadable string is a `VALIDATION_ERROR` that does not repeat it (it
    /// may hold a password).
    pub fn parse(conn: &str, env: &Env) -> Result<Target> {
        let (rest, ours) = split_ours(conn.trim());
        // A URL without a port reads as port 5432, which would hide PGPORT: it is written in.
        let rest = match env.var("PGPORT") {
            Some(port) => with_port(&rest, port),
            None => rest,
        };
        let mut config = if rest.is_empty() {
            Config::new()
        } else {
            Config::from_str(&rest).map_err(|e| {
                Error::validation(format!(
                    "the team database's URL does not read as postgres://user@host:port/db or key=value words: {}",
                    scrub(&e.to_string(), password_in(conn).as_deref())
                ))
            })?
        };
        let var = |k: &str| env.var(k).filter(|v| !v.is_empty()).map(str::to_string);
        let ours_get = |k: &str| {
            ours.iter()
                .rev()
                .find(|(n, _)| n == k)
                .map(|(_, v)| v.clone())
        };

        if config.get_hosts().is_empty() {
            let host = var("PGHOST").unwrap_or_else(|| "localhost".to_string());
            for h in host.split(',') {
                if h.starts_with('/') {
                    config.host_path(h);
                } else {
                    config.host(h);
                }
            }
        }
        if config.get_ports().is_empty() {
            if let Some(p) = var("PGPORT") {
                let port = p.parse::<u16>().map_err(|_| {
                    Error::validation(format!("PGPORT must be a port number, got '{p}'"))
                })?;
                config.port(port);
            }
        }
        if config.get_user().is_none() {
            let user = var("PGUSER").unwrap_or_else(os_user);
            config.user(&user);
        }
        if config.get_dbname().is_none() {
            if let Some(db) = var("PGDATABASE") {
                config.dbname(&db);
            }
        }
        if config.get_application_name().is_none() {
            config.application_name(&var("PGAPPNAME").unwrap_or_else(|| "amux".to_string()));
        }
        if config.get_connect_timeout().is_none() {
            let secs = match var("PGCONNECT_TIMEOUT") {
                Some(s) => s.parse::<u64>().map_err(|_| {
                    Error::validation(format!("PGCONNECT_TIMEOUT must be seconds, got '{s}'"))
                })?,
                None => 10,
            };
            config.connect_timeout(Duration::from_secs(secs.max(2)));
        }
        // A dead peer (a cable pulled mid-sync) is noticed rather than waited on for hours.
        config.keepalives_idle(Duration::from_secs(30));

        let tls = TlsMode::parse(
            &ours_get("sslmode")
                .or_else(|| var("PGSSLMODE"))
                .unwrap_or_else(|| "prefer".to_string()),
        )?;
        config.ssl_mode(match tls {
            TlsMode::Disable => SslMode::Disable,
            TlsMode::Prefer => SslMode::Prefer,
            _ => SslMode::Require,
        });
        let root_cert = ours_get("sslrootcert")
            .or_else(|| var("PGSSLROOTCERT"))
            .map(PathBuf::from)
            .or_else(|| {
                env.home_join(".postgresql/root.crt")
                    .filter(|p| p.is_file())
            });

        let user = config.get_user().unwrap_or_default().to_string();
        let db = config.get_dbname().unwrap_or(&user).to_string();
        let host = match config.get_hosts().first() {
            Some(Host::Tcp(h)) => h.clone(),
            #[cfg(unix)]
            Some(Host::Unix(p)) => p.display().to_string(),
            None => "localhost".to_string(),
        };
        let port = config.get_ports().first().copied().unwrap_or(5432);
        let mut password = config
            .get_password()
            .map(|p| String::from_utf8_lossy(p).into_owned());
        if password.is_none() {
            password = var("PGPASSWORD").or_else(|| {
                let file = ours_get("passfile")
                    .map(PathBuf::from)
                    .or_else(|| var("PGPASSFILE").map(PathBuf::from))
                    .or_else(|| env.home_join(".pgpass"))?;
                from_passfile(&file, &host, port, &db, &user)
            });
            if let Some(p) = &password {
                config.password(p.as_bytes());
            }
        }
        Ok(Target {
            config,
            tls,
            root_cert,
            password,
            name: format!("{user}@{host}:{port}/{db}"),
        })
    }

    /// `user@host:port/db`: the database named without its password.
    pub fn name(&self) -> &str {
        &self.name
    }

    pub fn tls(&self) -> TlsMode {
        self.tls
    }

    /// Opens a connection. Errors as `error` classifies them.
    pub fn connect(&self) -> Result<Client> {
        let done = match self.tls {
            TlsMode::Disable => self.config.connect(NoTls),
            mode => self.config.connect(self.rustls(mode)?),
        };
        done.map_err(|e| self.error(&e, "connect to"))
    }

    fn rustls(&self, mode: TlsMode) -> Result<tokio_postgres_rustls::MakeRustlsConnect> {
        let provider = Arc::new(rustls::crypto::ring::default_provider());
        let builder = rustls::ClientConfig::builder_with_provider(provider.clone())
            .with_safe_default_protocol_versions()
            .map_err(|e| Error::internal(format!("TLS: {e}")))?;
        let roots = || -> Result<Arc<RootCertStore>> {
            let mut roots = RootCertStore::empty();
            match &self.root_cert {
                Some(path) => {
                    for cert in read_certs(path)? {
                        roots.add(cert).map_err(|e| {
                            Error::new(
                                ErrorCode::ConfigError,
                                format!("sslrootcert {}: {e}", path.display()),
                            )
                        })?;
                    }
                }
                None => roots.extend(webpki_roots::TLS_SERVER_ROOTS.iter().cloned()),
            }
            Ok(Arc::new(roots))
        };
        let webpki = |roots| {
            rustls::client::WebPkiServerVerifier::builder_with_provider(roots, provider.clone())
                .build()
                .map_err(|e| Error::new(ErrorCode::ConfigError, format!("TLS roots: {e}")))
        };
        let config = match mode {
            TlsMode::VerifyFull => builder.with_root_certificates(roots()?),
            TlsMode::VerifyCa => builder
                .dangerous()
                .with_custom_certificate_verifier(Arc::new(AnyName(webpki(roots()?)?))),
            TlsMode::Require if self.root_cert.is_some() => builder
                .dangerous()
                .with_custom_certificate_verifier(Arc::new(AnyName(webpki(roots()?)?))),
            _ => builder
                .dangerous()
                .with_custom_certificate_verifier(Arc::new(Unchecked(provider.clone()))),
        };
        Ok(tokio_postgres_rustls::MakeRustlsConnect::new(
            config.with_no_client_auth(),
        ))
    }

    /// A driver error as the core's: rejected credentials `AUTH_ERROR`, a missing database or a
    /// TLS setting the server cannot meet `CONFIG_ERROR`, a server that cannot be reached or a
    /// connection lost midway `TIMEOUT` (try again later), anything else `INTERNAL`. The message
    /// says what was being done (`doing`) with which database, and never holds the password.
    pub fn error(&self, e: &postgres::Error, doing: &str) -> Error {
        let (code, why) = classify(e);
        let text = format!("cannot {doing} the team database {}: {why}", self.name);
        Error::new(code, scrub(&text, self.password.as_deref()))
    }
}

/// The error's code and what to say about it.
fn classify(e: &postgres::Error) -> (ErrorCode, String) {
    if let Some(db) = e.as_db_error() {
        let code = db.code();
        let what = format!("{} ({})", db.message(), code.code());
        if *code == SqlState::INVALID_PASSWORD
            || *code == SqlState::INVALID_AUTHORIZATION_SPECIFICATION
            || *code == SqlState::INSUFFICIENT_PRIVILEGE
        {
            return (ErrorCode::AuthError, what);
        }
        if *code == SqlState::INVALID_CATALOG_NAME {
            return (ErrorCode::ConfigError, what);
        }
        if code.code().starts_with("57P") || code.code().starts_with("08") {
            return (
                ErrorCode::Timeout,
                format!("the connection was lost: {what}"),
            );
        }
        return (ErrorCode::Internal, what);
    }
    let text = full_text(e);
    // An I/O error on an open connection (reset by the server, a broken pipe) loses it too.
    let io = std::error::Error::source(e).is_some_and(|s| s.is::<std::io::Error>());
    if e.is_closed() || io || text.contains("connection closed") || text.contains("unexpected EOF")
    {
        return (
            ErrorCode::Timeout,
            format!("the connection was lost ({text})"),
        );
    }
    if text.contains("password missing") || text.contains("SASL") {
        return (ErrorCode::AuthError, text);
    }
    if text.contains("TLS") || text.contains("tls") || text.contains("certificate") {
        return (ErrorCode::ConfigError, text);
    }
    if text.contains("error connecting") || text.contains("timed out") || text.contains("refused") {
        return (
            ErrorCode::Timeout,
            format!("the server cannot be reached ({text})"),
        );
    }
    (ErrorCode::Internal, text)
}

/// The error and its causes on one line.
fn full_text(e: &postgres::Error) -> String {
    let mut text = e.to_string();
    let mut source = std::error::Error::source(e);
    while let Some(s) = source {
        let s_text = s.to_string();
        if !text.contains(&s_text) {
            text.push_str(": ");
            text.push_str(&s_text);
        }
        source = s.source();
    }
    text
}

/// `text` with every occurrence of the password replaced.
pub fn scrub(text: &str, password: Option<&str>) -> String {
    match password {
        Some(p) if !p.is_empty() => text.replace(p, "********"),
        _ => text.to_string(),
    }
}

/// The password a URL holds, if any (to scrub a parse error that quotes it).
fn password_in(conn: &str) -> Option<String> {
    let rest = conn.split_once("://")?.1;
    let userinfo = rest.split(['/', '?']).next()?.rsplit_once('@')?.0;
    Some(percent_decode(userinfo.split_once(':')?.1))
}

fn os_user() -> String {
    ["USER", "USERNAME", "LOGNAME"]
        .iter()
        .find_map(|k| std::env::var(k).ok().filter(|v| !v.is_empty()))
        .unwrap_or_else(|| "postgres".to_string())
}

/// The password for `host:port/db` as `user` from a libpq password file: the first line whose
/// fields match (`*` matches anything; `\:` and `\\` escape). As libpq, a file others may read
/// is ignored, and a socket directory matches `localhost`.
pub fn from_passfile(path: &Path, host: &str, port: u16, db: &str, user: &str) -> Option<String> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let meta = std::fs::metadata(path).ok()?;
        if !meta.is_file() || meta.permissions().mode() & 0o077 != 0 {
            return None;
        }
    }
    let text = std::fs::read_to_string(path).ok()?;
    let host = if host.starts_with('/') {
        "localhost"
    } else {
        host
    };
    let port = port.to_string();
    let wanted = [host, &port, db, user];
    text.lines()
        .filter(|l| !l.trim_start().starts_with('#') && !l.trim().is_empty())
        .find_map(|line| {
            let fields = passfile_fields(line);
            if fields.len() < 5 {
                return None;
            }
            let matches = (fields.iter().zip(wanted)).all(|(f, w)| f == "*" || f == w);
            matches.then(|| fields[4..].join(":"))
        })
}

fn passfile_fields(line: &str) -> Vec<String> {
    let mut fields = vec![String::new()];
    let mut chars = line.chars();
    while let Some(c) = chars.next() {
        match c {
            '\\' => {
                if let Some(n) = chars.next() {
                    fields.last_mut().expect("one field").push(n);
                }
            }
            ':' => fields.push(String::new()),
            c => fields.last_mut().expect("one field").push(c),
        }
    }
    fields
}

fn read_certs(path: &Path) -> Result<Vec<CertificateDer<'static>>> {
    use rustls::pki_types::pem::PemObject;
    let bad = |e: &dyn std::fmt::Display| {
        Error::new(
            ErrorCode::ConfigError,
            format!("sslrootcert {} cannot be read: {e}", path.display()),
        )
    };
    let certs = CertificateDer::pem_file_iter(path)
        .map_err(|e| bad(&e))?
        .collect::<std::result::Result<Vec<_>, _>>()
        .map_err(|e| bad(&e))?;
    if certs.is_empty() {
        return Err(bad(&"it holds no PEM certificate"));
    }
    Ok(certs)
}

/// `verify-ca`: the chain must lead to a trusted root; the name in it is not checked.
#[derive(Debug)]
struct AnyName(Arc<rustls::client::WebPkiServerVerifier>);

impl ServerCertVerifier for AnyName {
    fn verify_server_cert(
        &self,
        end_entity: &CertificateDer<'_>,
        intermediates: &[CertificateDer<'_>],
        server_name: &ServerName<'_>,
        ocsp: &[u8],
        now: UnixTime,
    ) -> std::result::Result<ServerCertVerified, rustls::Error> {
        match (self.0).verify_server_cert(end_entity, intermediates, server_name, ocsp, now) {
            Err(rustls::Error::InvalidCertificate(rustls::CertificateError::NotValidForName))
            | Err(rustls::Error::InvalidCertificate(
                rustls::CertificateError::NotValidForNameContext { .. },
            )) => Ok(ServerCertVerified::assertion()),
            other => other,
        }
    }
    fn verify_tls12_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> std::result::Result<HandshakeSignatureValid, rustls::Error> {
        self.0.verify_tls12_signature(message, cert, dss)
    }
    fn verify_tls13_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> std::result::Result<HandshakeSignatureValid, rustls::Error> {
        self.0.verify_tls13_signature(message, cert, dss)
    }
    fn supported_verify_schemes(&self) -> Vec<SignatureScheme> {
        self.0.supported_verify_schemes()
    }
}

/// `prefer` and `require` without a root certificate, as libpq: encrypted, the certificate not
/// checked (the handshake's signatures still are).
#[derive(Debug)]
struct Unchecked(Arc<rustls::crypto::CryptoProvider>);

impl ServerCertVerifier for Unchecked {
    fn verify_server_cert(
        &self,
        _end_entity: &CertificateDer<'_>,
        _intermediates: &[CertificateDer<'_>],
        _server_name: &ServerName<'_>,
        _ocsp: &[u8],
        _now: UnixTime,
    ) -> std::result::Result<ServerCertVerified, rustls::Error> {
        Ok(ServerCertVerified::assertion())
    }
    fn verify_tls12_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> std::result::Result<HandshakeSignatureValid, rustls::Error> {
        rustls::crypto::verify_tls12_signature(
            message,
            cert,
            dss,
            &self.0.signature_verification_algorithms,
        )
    }
    fn verify_tls13_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> std::result::Result<HandshakeSignatureValid, rustls::Error> {
        rustls::crypto::verify_tls13_signature(
            message,
            cert,
            dss,
            &self.0.signature_verification_algorithms,
        )
    }
    fn supported_verify_schemes(&self) -> Vec<SignatureScheme> {
        self.0.signature_verification_algorithms.supported_schemes()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env(pairs: &[(&str, &str)]) -> Env {
        Env::from_pairs(pairs.iter().copied())
    }

    #[test]
    fn pgport_fills_the_hosts_that_name_no_port() {
        assert_eq!(
            with_port("postgres://u:p@h/db?x=1", "6543"),
            "postgres://u:p@h:6543/db?x=1"
        );
        assert_eq!(
            with_port("postgres://h1:5000,h2/db", "6543"),
            "postgres://h1:5000,h2:6543/db"
        );
        assert_eq!(
            with_port("postgresql://[::1]/db", "7"),
            "postgresql://[::1]:7/db"
        );
        assert_eq!(
            with_port("postgres://[::1]:9/db", "7"),
            "postgres://[::1]:9/db"
        );
        assert_eq!(with_port("host=h dbname=d", "7"), "host=h dbname=d");
    }

    #[test]
    fn url_parameters_and_pg_variables() {
        let e = env(&[
            ("PGPORT", "6543"),
            ("PGUSER", "bob"),
            ("PGSSLMODE", "require"),
        ]);
        let t = Target::parse(
            "postgres://alice:s3cret@db.example:5433/team?sslmode=verify-full&application_name=x",
            &e,
        )
        .unwrap();
        assert_eq!(t.name(), "alice@db.example:5433/team");
        assert_eq!(t.tls(), TlsMode::VerifyFull);
        assert_eq!(t.password.as_deref(), Some("s3cret"));
        let t = Target::parse("postgres://db.example/team", &e).unwrap();
        assert_eq!(t.name(), "bob@db.example:6543/team");
        assert_eq!(t.tls(), TlsMode::Require);
        let t = Target::parse("host=h1 dbname=d sslmode=disable", &env(&[])).unwrap();
        assert_eq!(t.tls(), TlsMode::Disable);
        assert!(t.name().ends_with("@h1:5432/d"), "{}", t.name());
    }

    #[test]
    fn a_bad_url_never_repeats_the_password() {
        let e = Target::parse("postgres://u:hunter22@host:notaport/db", &env(&[]))
            .err()
            .expect("bad port");
        assert_eq!(e.code, ErrorCode::ValidationError);
        assert!(!e.message.contains("hunter22"), "{}", e.message);
        let e = Target::parse("postgres://h/db?sslmode=sometimes", &env(&[]))
            .err()
            .expect("bad sslmode");
        assert!(e.message.contains("verify-full"), "{}", e.message);
    }

    #[test]
    fn passfile_lines_match_with_wildcards_and_escapes() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("pgpass");
        std::fs::write(
            &file,
            "# comment\nother:5432:*:alice:no\ndb.example:*:team:alice:pa\\:ss\n*:*:*:*:any\n",
        )
        .unwrap();
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o600)).unwrap();
        }
        let got = |host, user| from_passfile(&file, host, 5432, "team", user);
        assert_eq!(got("db.example", "alice").as_deref(), Some("pa:ss"));
        assert_eq!(got("elsewhere", "carol").as_deref(), Some("any"));
        let e = env(&[("PGPASSFILE", file.to_str().unwrap())]);
        let t = Target::parse("postgres://alice@db.example/team", &e).unwrap();
        assert_eq!(t.password.as_deref(), Some("pa:ss"));
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o644)).unwrap();
            assert_eq!(
                got("db.example", "alice"),
                None,
                "a file others read is ignored"
            );
        }
    }

    #[test]
    fn scrub_hides_the_password() {
        assert_eq!(
            scrub("a pw1234 b pw1234", Some("pw1234")),
            "a ******** b ********"
        );
        assert_eq!(
            password_in("postgres://u:p%40ss@h/db").as_deref(),
            Some("p@ss")
        );
    }
}
