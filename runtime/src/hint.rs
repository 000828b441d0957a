//! `Hint`: what the user can do about an error, when awf knows. Each concern's error types
//! implement it beside their texts; the CLI prints it after a blank line as `hint: ...`.

/// What the user can do about an error, when awf knows.
pub trait Hint {
    fn hint(&self) -> Option<String>;
}
