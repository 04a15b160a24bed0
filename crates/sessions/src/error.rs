//! One error type for the whole core, carrying the spec's error code.
use std::fmt;

/// The subset of the spec's `ErrorCode` values the session API can produce.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ErrorCode {
    AgentNotFound,
    SessionNotFound,
    ParseError,
    ValidationError,
    /// The team database refused the credentials (or the role may not do what was asked).
    AuthError,
    /// The team database's settings cannot be met: a missing database, TLS, a newer schema.
    ConfigError,
    /// The team database cannot be reached, or the connection was lost midway.
    Timeout,
    Internal,
    /// A call the client's source cannot answer (a team database has no index, no kept store).
    Capability,
    /// The caller gave the call up before it was done (`search`'s `signal`).
    Aborted,
}

impl ErrorCode {
    pub fn as_str(self) -> &'static str {
        match self {
            ErrorCode::AgentNotFound => "AGENT_NOT_FOUND",
            ErrorCode::SessionNotFound => "SESSION_NOT_FOUND",
            ErrorCode::ParseError => "PARSE_ERROR",
            ErrorCode::ValidationError => "VALIDATION_ERROR",
            ErrorCode::AuthError => "AUTH_ERROR",
            ErrorCode::ConfigError => "CONFIG_ERROR",
            ErrorCode::Timeout => "TIMEOUT",
            ErrorCode::Internal => "INTERNAL",
            ErrorCode::Capability => "CAPABILITY_ERROR",
            ErrorCode::Aborted => "ABORTED",
        }
    }
}

/// Every `ErrorCode` of the spec (core-types.md 3.1), for validating options that name codes.
pub const SPEC_ERROR_CODES: [&str; 24] = [
    "CAPABILITY_ERROR",
    "VALIDATION_ERROR",
    "AUTH_ERROR",
    "AGENT_NOT_FOUND",
    "AGENT_NOT_INSTALLED",
    "AGENT_CRASH",
    "SPAWN_ERROR",
    "TIMEOUT",
    "INACTIVITY_TIMEOUT",
    "PARSE_ERROR",
    "CONFIG_ERROR",
    "CONFIG_LOCK_ERROR",
    "SESSION_NOT_FOUND",
    "PROFILE_NOT_FOUND",
    "PLUGIN_ERROR",
    "RATE_LIMITED",
    "CONTEXT_EXCEEDED",
    "ABORTED",
    "RUN_NOT_ACTIVE",
    "STDIN_NOT_AVAILABLE",
    "NO_PENDING_INTERACTION",
    "INVALID_STATE_TRANSITION",
    "PTY_NOT_AVAILABLE",
    "INTERNAL",
];

#[derive(Debug, Clone, PartialEq)]
pub struct Error {
    pub code: ErrorCode,
    pub message: String,
}

pub type Result<T> = std::result::Result<T, Error>;

impl Error {
    pub fn new(code: ErrorCode, message: impl Into<String>) -> Self {
        Error {
            code,
            message: message.into(),
        }
    }
    pub fn agent_not_found(agent: &str) -> Self {
        Error::new(ErrorCode::AgentNotFound, format!("unknown agent '{agent}'"))
    }
    pub fn session_not_found(agent: &str, id: &str) -> Self {
        Error::new(
            ErrorCode::SessionNotFound,
            format!("no {agent} session with id '{id}'"),
        )
    }
    pub fn parse(path: impl fmt::Display, why: impl fmt::Display) -> Self {
        Error::new(ErrorCode::ParseError, format!("cannot parse {path}: {why}"))
    }
    /// A file in an agent's store that holds no record of the agent's format (say generic
    /// `{"role","content"}` rows): it is not a session. A summary read that fails leaves the
    /// file out of list, search and totalCost; `get` reports this `PARSE_ERROR`.
    pub fn not_a_session(path: impl fmt::Display, agent: &str) -> Self {
        Error::parse(
            path,
            format!("holds no {agent} record, so it is not a session"),
        )
    }
    pub fn validation(message: impl Into<String>) -> Self {
        Error::new(ErrorCode::ValidationError, message)
    }
    pub fn internal(message: impl Into<String>) -> Self {
        Error::new(ErrorCode::Internal, message)
    }
    pub fn aborted() -> Self {
        Error::new(ErrorCode::Aborted, "the call was given up by its caller")
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.code.as_str(), self.message)
    }
}

impl std::error::Error for Error {}
