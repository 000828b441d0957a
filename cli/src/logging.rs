//! Diagnostics on stderr: the library reports through `tracing` and never prints by itself;
//! this is the one subscriber, set up before any command runs.
//!
//! What shows is `--log-level` if given, else `AWF_LOG`, else warnings only, in tracing's filter
//! syntax (`debug`, `awf_runtime::js=trace,info`). A warning or error reads as any awf message,
//! `awf: <what happened>`; more detailed levels add the level, where it came from and the spans
//! it happened in (`run{id=...}`, `turn{...}`, `tool{...}`), so a run can be followed step by step.

use std::fmt;

use awf_runtime::env::AWF_LOG;
use tracing::{Event, Level, Subscriber};
use tracing_subscriber::filter::LevelFilter;
use tracing_subscriber::fmt::format::Writer;
use tracing_subscriber::fmt::{FmtContext, FormatEvent, FormatFields, FormattedFields};
use tracing_subscriber::registry::LookupSpan;
use tracing_subscriber::EnvFilter;

/// Installs the stderr subscriber; a filter that does not parse is said once, and warnings only
/// are shown.
pub fn init(log_level: Option<&str>) {
    let wanted = log_level
        .map(str::to_string)
        .or_else(|| std::env::var(AWF_LOG).ok())
        .filter(|text| !text.trim().is_empty());
    let subscriber = tracing_subscriber::fmt()
        .with_writer(std::io::stderr)
        .event_format(AwfFormat);
    // Warnings only, the default, needs no filter parsing (nor the code of it, at start-up).
    let Some(text) = wanted else {
        let _ = subscriber.with_max_level(LevelFilter::WARN).try_init();
        return;
    };
    match EnvFilter::try_new(&text) {
        Ok(filter) => {
            let _ = subscriber.with_env_filter(filter).try_init();
        }
        Err(error) => {
            let _ = subscriber.with_max_level(LevelFilter::WARN).try_init();
            tracing::warn!("log level {text:?} is not a filter ({error}); showing warnings only");
        }
    }
}

/// `awf: message` for warnings and errors; `awf: LEVEL target span{..}:span{..}: message
/// fields` for the rest.
struct AwfFormat;

impl<S, N> FormatEvent<S, N> for AwfFormat
where
    S: Subscriber + for<'a> LookupSpan<'a>,
    N: for<'a> FormatFields<'a> + 'static,
{
    fn format_event(
        &self,
        ctx: &FmtContext<'_, S, N>,
        mut writer: Writer<'_>,
        event: &Event<'_>,
    ) -> fmt::Result {
        let metadata = event.metadata();
        write!(writer, "awf: ")?;
        if *metadata.level() > Level::WARN {
            write!(writer, "{} {}", metadata.level(), metadata.target())?;
            if let Some(scope) = ctx.event_scope() {
                for span in scope.from_root() {
                    write!(writer, " {}", span.name())?;
                    let extensions = span.extensions();
                    if let Some(fields) = extensions.get::<FormattedFields<N>>() {
                        if !fields.is_empty() {
                            write!(writer, "{{{fields}}}")?;
                        }
                    }
                }
            }
            write!(writer, ": ")?;
        }
        ctx.format_fields(writer.by_ref(), event)?;
        writeln!(writer)
    }
}
