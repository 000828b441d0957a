//! Integration tests that drive the built binaries; one file per area.

/// `awf test`: exit codes, discovery, filters, time-outs, output, JUnit, bun conformance.
mod test_command;
