//! The team database's schema, versioned: `schema/vN.sql` takes version N-1 to N. `migrate`
//! applies the missing versions in order, in one transaction under an advisory lock, so syncs
//! started together from many machines upgrade it once and the others wait and find it done.
use postgres::Client;

use super::conn::Target;
use crate::error::{Error, ErrorCode, Result};

/// Each version's SQL, from 1.
const MIGRATIONS: &[&str] = &[
    include_str!("schema/v1.sql"),
    include_str!("schema/v2.sql"),
    include_str!("schema/v3.sql"),
    include_str!("schema/v4.sql"),
    include_str!("schema/v5.sql"),
    include_str!("schema/v6.sql"),
];

/// The version this amux writes and reads.
pub const VERSION: i32 = MIGRATIONS.len() as i32;

/// The advisory lock key of migrations ("amux" in ASCII); a machine's syncs lock their own.
const MIGRATION_LOCK: i64 = 0x616d_7578;

/// The version the database is at (0: no amux schema yet).
pub fn version(db: &mut Client, target: &Target) -> Result<i32> {
    at_version(db).map_err(|e| target.error(&e, "read the schema version of"))
}

/// The version, read in two steps: a query naming a table that does not exist fails to plan.
/// Whether it exists is asked of pg_class with the statement's snapshot: `to_regclass` reads the
/// catalog cache, which may not yet show a table another sync created while this one waited.
fn at_version(db: &mut impl postgres::GenericClient) -> std::result::Result<i32, postgres::Error> {
    let exists: bool = db
        .query_one(
            "SELECT EXISTS (SELECT 1 FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace n \
             ON n.oid = c.relnamespace WHERE c.relname = 'amux_schema' AND n.nspname = current_schema())",
            &[],
        )?
        .get(0);
    if !exists {
        return Ok(0);
    }
    let row = db.query_one("SELECT coalesce(max(version), 0) FROM amux_schema", &[])?;
    Ok(row.get(0))
}

/// Brings the database to `VERSION`; returns the version it was at.
pub fn migrate(db: &mut Client, target: &Target) -> Result<i32> {
    migrate_to(db, target, VERSION)
}

/// Brings the database to version `to` (an older amux's, for the upgrade test). A database at a
/// newer version than this amux knows is a `CONFIG_ERROR`: it is never written to.
pub fn migrate_to(db: &mut Client, target: &Target, to: i32) -> Result<i32> {
    let err = |e: postgres::Error| target.error(&e, "upgrade the schema of");
    let at = version(db, target)?;
    if at >= to {
        return check_known(at, target);
    }
    let mut tx = db.transaction().map_err(err)?;
    tx.execute("SELECT pg_advisory_xact_lock($1)", &[&MIGRATION_LOCK])
        .map_err(err)?;
    // Read again under the lock: another sync may have upgraded it meanwhile.
    let at = at_version(&mut tx).map_err(err)?;
    for v in at + 1..=to {
        tx.batch_execute(MIGRATIONS[(v - 1) as usize])
            .map_err(err)?;
        tx.execute("INSERT INTO amux_schema (version) VALUES ($1)", &[&v])
            .map_err(err)?;
    }
    tx.commit().map_err(err)?;
    check_known(at, target)
}

fn check_known(at: i32, target: &Target) -> Result<i32> {
    if at > VERSION {
        return Err(Error::new(
            ErrorCode::ConfigError,
            format!(
                "the team database {} has schema version {at}, newer than this amux's ({VERSION}): upgrade amux",
                target.name()
            ),
        ));
    }
    Ok(at)
}
