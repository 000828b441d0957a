//! `RecordWriter`: one run's whole-file records (run.json, attempts/, stages/, replaced/,
//! output.json) written on a thread of their own, one after the other in the order they were
//! given. The run does not wait for the disk (each record is flushed before it takes its name,
//! whole_file.rs, and a flush takes about a millisecond), yet the files land in the order the run
//! wrote them. `give` leaves a write behind: its error, naming the file, comes back from the
//! next `flush`. `wait` gives one write's own result, after everything given before it (a claim
//! whose name is taken). `flush` waits for everything given so far; dropping the writer does too.

use std::io;
use std::path::{Path, PathBuf};
use std::sync::mpsc;
use std::sync::{Arc, Mutex, MutexGuard};
use std::thread::JoinHandle;

use super::whole_file::{
    claim_durably, claim_whole, make_private_dirs, publish, write_atomically, write_in_place,
};

/// One write of a whole record; the folders above it are made as needed.
#[derive(Debug)]
pub enum RecordWrite {
    /// `target` replaced whole and durably.
    Replace { target: PathBuf, bytes: Vec<u8> },
    /// `target` created whole and durably; `AlreadyExists` when the name is taken.
    Claim { target: PathBuf, bytes: Vec<u8> },
    /// `target` written over in place, not flushed: a copy of what a durable record beside it
    /// holds (an attempt's ending, which output.json has too). A reader, `kill -9` or a power cut
    /// may find the old file, an empty or a cut-off one; run_files.rs reads the ending from
    /// output.json then.
    Copy { target: PathBuf, bytes: Vec<u8> },
    /// `from` moved to `to`, when `from` is there.
    MoveAside { from: PathBuf, to: PathBuf },
    /// A claim that a copy of the same record superseded before it was written (`coalesce`):
    /// the name is claimed with the copy's bytes, not flushed.
    ClaimedCopy { target: PathBuf, bytes: Vec<u8> },
}

impl RecordWrite {
    fn apply(self) -> io::Result<()> {
        type Put = fn(&Path, &[u8]) -> io::Result<()>;
        let (target, bytes, put): (PathBuf, Vec<u8>, Put) = match self {
            RecordWrite::Replace { target, bytes } => (target, bytes, write_atomically),
            RecordWrite::Claim { target, bytes } => (target, bytes, claim_durably),
            RecordWrite::Copy { target, bytes } => (target, bytes, write_in_place),
            RecordWrite::ClaimedCopy { target, bytes } => (target, bytes, claim_whole),
            RecordWrite::MoveAside { from, to } => {
                if !from.exists() {
                    return Ok(());
                }
                let done = parent_made(&to).and_then(|()| publish(&from, &to));
                return named(&to, done);
            }
        };
        let done = parent_made(&target).and_then(|()| put(&target, &bytes));
        named(&target, done)
    }

    /// The file this write puts whole in place, if it is one.
    fn target(&self) -> Option<&Path> {
        match self {
            RecordWrite::Replace { target, .. }
            | RecordWrite::Claim { target, .. }
            | RecordWrite::Copy { target, .. }
            | RecordWrite::ClaimedCopy { target, .. } => Some(target),
            RecordWrite::MoveAside { .. } => None,
        }
    }

    fn touches(&self, path: &Path) -> bool {
        match self {
            RecordWrite::MoveAside { from, to } => from == path || to == path,
            other => other.target() == Some(path),
        }
    }
}

/// Writes nobody waits on, as the thread finds them queued: a record superseded before it was
/// written is not written on its own. A replace gives way to a later replace of the same file;
/// a claim to a later copy, which then claims the name itself, in its own place in the order (a
/// new run's attempt record, claimed at its start and copied with its ending at its end, when
/// the run is over before the claim reached the disk). A job someone waits for is never merged,
/// and nothing is merged across it: a flush covers what was given before it.
fn coalesce(batch: Vec<Job>) -> Vec<Job> {
    let mut jobs: Vec<Option<Job>> = batch.into_iter().map(Some).collect();
    for later in 0..jobs.len() {
        let Some(job) = &jobs[later] else { continue };
        if job.reply.is_some() {
            continue;
        }
        let Some(target) = job.write.as_ref().and_then(RecordWrite::target) else {
            continue;
        };
        let target = target.to_path_buf();
        let earlier = (0..later).rev().find_map(|i| match &jobs[i] {
            None => None,
            Some(job) if job.reply.is_some() => Some(None),
            Some(job) => job
                .write
                .as_ref()
                .is_some_and(|w| w.touches(&target))
                .then_some(Some(i)),
        });
        let Some(Some(earlier)) = earlier else {
            continue;
        };
        let earlier_write = jobs[earlier].as_ref().and_then(|job| job.write.as_ref());
        let earlier_replaces = matches!(earlier_write, Some(RecordWrite::Replace { .. }));
        let earlier_claims = matches!(earlier_write, Some(RecordWrite::Claim { .. }));
        let Some(Job {
            write: Some(write), ..
        }) = &mut jobs[later]
        else {
            continue;
        };
        let merged = match write {
            RecordWrite::Replace { .. } => earlier_replaces,
            RecordWrite::Copy { target, bytes } if earlier_claims => {
                *write = RecordWrite::ClaimedCopy {
                    target: std::mem::take(target),
                    bytes: std::mem::take(bytes),
                };
                true
            }
            _ => false,
        };
        if merged {
            jobs[earlier] = None;
        }
    }
    jobs.into_iter().flatten().collect()
}

/// `done`'s error says which file it is about.
fn named(target: &Path, done: io::Result<()>) -> io::Result<()> {
    done.map_err(|e| io::Error::new(e.kind(), format!("{}: {e}", target.display())))
}

fn parent_made(target: &Path) -> io::Result<()> {
    match target.parent() {
        Some(dir) => make_private_dirs(dir),
        None => Ok(()),
    }
}

/// A write to do, and who waits for its result (none: a write left behind).
struct Job {
    write: Option<RecordWrite>,
    reply: Option<mpsc::SyncSender<io::Result<()>>>,
}

impl Job {
    fn run(self, failed: &Mutex<Option<io::Error>>) {
        let done = self.write.map_or(Ok(()), RecordWrite::apply);
        match self.reply {
            Some(reply) => {
                let _ = reply.send(done);
            }
            None => {
                if let Err(e) = done {
                    locked(failed).get_or_insert(e);
                }
            }
        }
    }
}

fn locked<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(|e| e.into_inner())
}

/// The writer of one run's records; its thread starts with the first write.
#[derive(Default)]
pub struct RecordWriter {
    queue: Mutex<Option<mpsc::Sender<Job>>>,
    thread: Mutex<Option<JoinHandle<()>>>,
    /// The first error of a write left behind, until a flush reports it.
    failed: Arc<Mutex<Option<io::Error>>>,
}

impl RecordWriter {
    /// Leaves `write` to the writer's thread.
    pub fn give(&self, write: RecordWrite) {
        self.send(Job {
            write: Some(write),
            reply: None,
        });
    }

    /// Does `write` after everything given before it; its own result.
    pub fn wait(&self, write: RecordWrite) -> io::Result<()> {
        self.round_trip(Some(write))
    }

    /// Waits for everything given so far; the first error of those left behind, if any.
    pub fn flush(&self) -> io::Result<()> {
        let done = self.round_trip(None);
        match locked(&self.failed).take() {
            Some(e) => Err(e),
            None => done,
        }
    }

    fn round_trip(&self, write: Option<RecordWrite>) -> io::Result<()> {
        let (reply, answer) = mpsc::sync_channel(1);
        self.send(Job {
            write,
            reply: Some(reply),
        });
        answer
            .recv()
            .unwrap_or_else(|_| Err(io::Error::other("the records' writer stopped")))
    }

    /// Hands `job` to the thread, starting it first if need be; when no thread can run it, the
    /// job is done here, after the thread's (the order holds).
    fn send(&self, job: Job) {
        let mut queue = locked(&self.queue);
        if queue.is_none() {
            let (sender, jobs) = mpsc::channel::<Job>();
            let failed = self.failed.clone();
            let started = std::thread::Builder::new()
                .name("awf-records".to_string())
                .spawn(move || {
                    // One job at a time, each time with what was queued meanwhile coalesced.
                    let mut pending: Vec<Job> = Vec::new();
                    loop {
                        if pending.is_empty() {
                            match jobs.recv() {
                                Ok(job) => pending.push(job),
                                Err(_) => break,
                            }
                        }
                        pending.extend(jobs.try_iter());
                        pending = coalesce(pending);
                        pending.remove(0).run(&failed);
                    }
                });
            match started {
                Ok(thread) => {
                    *locked(&self.thread) = Some(thread);
                    *queue = Some(sender);
                }
                Err(_) => return job.run(&self.failed),
            }
        }
        let Some(sender) = queue.as_ref() else {
            return job.run(&self.failed);
        };
        if let Err(mpsc::SendError(job)) = sender.send(job) {
            *queue = None;
            if let Some(thread) = locked(&self.thread).take() {
                let _ = thread.join();
            }
            job.run(&self.failed);
        }
    }
}

impl Drop for RecordWriter {
    fn drop(&mut self) {
        let _ = self.flush();
        locked(&self.queue).take();
        if let Some(thread) = locked(&self.thread).take() {
            let _ = thread.join();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs;

    fn scratch(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("awf-writer-{name}-{}", std::process::id()));
        let _ = fs::remove_dir_all(&dir);
        make_private_dirs(&dir).unwrap();
        dir
    }

    fn replace(target: PathBuf, text: &str) -> RecordWrite {
        RecordWrite::Replace {
            target,
            bytes: text.as_bytes().to_vec(),
        }
    }

    #[test]
    fn writes_left_behind_land_in_order_before_a_flush_returns() {
        let dir = scratch("order");
        let writer = RecordWriter::default();
        for n in 0..20 {
            writer.give(replace(dir.join("a.json"), &format!("{n}\n")));
        }
        writer.give(replace(dir.join("attempts/1.json"), "made its folder\n"));
        writer.flush().unwrap();
        assert_eq!(fs::read_to_string(dir.join("a.json")).unwrap(), "19\n");
        assert_eq!(
            fs::read_to_string(dir.join("attempts/1.json")).unwrap(),
            "made its folder\n"
        );
        fs::remove_dir_all(dir).unwrap();
    }

    #[test]
    fn a_claim_waited_for_says_the_name_is_taken() {
        let dir = scratch("claim");
        let writer = RecordWriter::default();
        let claim = |text: &str| RecordWrite::Claim {
            target: dir.join("attempts/2.json"),
            bytes: text.as_bytes().to_vec(),
        };
        writer.give(claim("first\n"));
        let error = writer.wait(claim("second\n")).unwrap_err();
        assert_eq!(error.kind(), io::ErrorKind::AlreadyExists);
        assert!(error.to_string().contains("attempts/2.json"), "{error}");
        assert_eq!(
            fs::read_to_string(dir.join("attempts/2.json")).unwrap(),
            "first\n"
        );
        writer.flush().unwrap();
        fs::remove_dir_all(dir).unwrap();
    }

    #[test]
    fn an_error_left_behind_comes_back_once_from_the_next_flush_naming_its_file() {
        let dir = scratch("error");
        let writer = RecordWriter::default();
        fs::create_dir_all(dir.join("run.json/inside")).unwrap();
        writer.give(replace(dir.join("run.json"), "{}\n"));
        writer.give(replace(dir.join("output.json"), "{}\n"));
        let error = writer.flush().unwrap_err();
        assert!(
            error
                .to_string()
                .starts_with(&format!("{}: ", dir.join("run.json").display())),
            "{error}"
        );
        assert!(dir.join("output.json").is_file(), "written all the same");
        writer.flush().unwrap();
        fs::remove_dir_all(dir).unwrap();
    }

    #[test]
    fn a_move_aside_of_a_missing_file_is_nothing_and_of_a_file_moves_it() {
        let dir = scratch("move");
        let writer = RecordWriter::default();
        let aside = |name: &str| RecordWrite::MoveAside {
            from: dir.join(name),
            to: dir.join("replaced").join(name),
        };
        writer.wait(aside("missing.json")).unwrap();
        writer.give(replace(dir.join("a.json"), "a\n"));
        writer.wait(aside("a.json")).unwrap();
        assert!(!dir.join("a.json").exists());
        assert_eq!(
            fs::read_to_string(dir.join("replaced/a.json")).unwrap(),
            "a\n"
        );
        fs::remove_dir_all(dir).unwrap();
    }

    /// Writes left behind, as a batch the thread finds queued: `("claim", "a/1.json", "x")`
    /// is a claim of a/1.json with the bytes `x`; `("flush", "", "")` a job waited for.
    fn batch(writes: &[(&str, &str, &str)]) -> Vec<Job> {
        writes
            .iter()
            .map(|&(kind, target, text)| {
                let (target, bytes) = (PathBuf::from(target), text.as_bytes().to_vec());
                let write = match kind {
                    "replace" => RecordWrite::Replace { target, bytes },
                    "claim" => RecordWrite::Claim { target, bytes },
                    "copy" => RecordWrite::Copy { target, bytes },
                    "move" => RecordWrite::MoveAside {
                        to: PathBuf::from(text),
                        from: target,
                    },
                    _ => {
                        let (reply, _answer) = mpsc::sync_channel(1);
                        return Job {
                            write: None,
                            reply: Some(reply),
                        };
                    }
                };
                Job {
                    write: Some(write),
                    reply: None,
                }
            })
            .collect()
    }

    /// What each job of a batch is, as `batch` takes them (a moved file shows where it went).
    fn shown(jobs: &[Job]) -> Vec<(String, String, String)> {
        jobs.iter()
            .map(|job| {
                let (kind, target, text) = match &job.write {
                    Some(RecordWrite::Replace { target, bytes }) => {
                        ("replace", target, bytes.clone())
                    }
                    Some(RecordWrite::Claim { target, bytes }) => ("claim", target, bytes.clone()),
                    Some(RecordWrite::Copy { target, bytes }) => ("copy", target, bytes.clone()),
                    Some(RecordWrite::ClaimedCopy { target, bytes }) => {
                        ("claimed-copy", target, bytes.clone())
                    }
                    Some(RecordWrite::MoveAside { from, to }) => {
                        ("move", from, to.display().to_string().into_bytes())
                    }
                    None => return ("flush".into(), String::new(), String::new()),
                };
                let text = String::from_utf8_lossy(&text).into_owned();
                (kind.to_string(), target.display().to_string(), text)
            })
            .collect()
    }

    fn rows(writes: &[(&str, &str, &str)]) -> Vec<(String, String, String)> {
        writes
            .iter()
            .map(|&(a, b, c)| (a.into(), b.into(), c.into()))
            .collect()
    }

    #[test]
    fn a_record_superseded_before_it_was_written_is_not_written_on_its_own() {
        let queued = batch(&[
            ("claim", "run.json", "run"),
            ("claim", "a/1.json", "started"),
            ("replace", "s/plan.json", "plan started"),
            ("replace", "s/plan.json", "plan ended"),
            ("replace", "output.json", "out"),
            ("copy", "a/1.json", "ended"),
        ]);
        assert_eq!(
            shown(&coalesce(queued)),
            rows(&[
                ("claim", "run.json", "run"),
                ("replace", "s/plan.json", "plan ended"),
                ("replace", "output.json", "out"),
                ("claimed-copy", "a/1.json", "ended"),
            ])
        );
    }

    #[test]
    fn nothing_is_merged_across_a_wait_or_a_move_of_the_same_file() {
        let writes = [
            ("claim", "a/1.json", "started"),
            ("flush", "", ""),
            ("copy", "a/1.json", "ended"),
            ("replace", "s/plan.json", "old"),
            ("move", "s/plan.json", "r/plan.2.json"),
            ("replace", "s/plan.json", "new"),
        ];
        assert_eq!(shown(&coalesce(batch(&writes))), rows(&writes));
    }

    #[test]
    fn dropping_the_writer_lands_what_was_left_behind() {
        let dir = scratch("drop");
        let writer = RecordWriter::default();
        writer.give(replace(dir.join("output.json"), "last\n"));
        drop(writer);
        assert_eq!(
            fs::read_to_string(dir.join("output.json")).unwrap(),
            "last\n"
        );
        fs::remove_dir_all(dir).unwrap();
    }
}
