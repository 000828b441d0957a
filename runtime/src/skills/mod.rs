//! Skills (issue 27 item 5): the exact skills an agent is opened with (`skills: [{ path }, { repo,
//! skill, ref? }]`), each a folder holding a SKILL.md, resolved to a folder on this machine
//! (`source`: a git repository is fetched with the `git` CLI into a cache keyed by repository and
//! commit), checked (`manifest`: SKILL.md's front matter names and describes it) and copied into
//! the folder the agent's CLI reads skills from (`copy`), with the sha256 digest of its files
//! recorded and the copy's digest checked against the source's. `give` is what an agent's open
//! calls: all of it, in order, for the agent's skills.

mod copy;
mod error;
mod give;
mod manifest;
mod source;

pub use copy::{check, digest, install, InstalledSkill};
pub use error::SkillError;
pub use give::{cache_dir, give, SkillRecord};
pub use manifest::{read_manifest, Manifest};
pub use source::{parse_sources, resolve, SkillSource};

#[cfg(test)]
mod tests;
