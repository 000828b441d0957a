//! `RecordWriter`: one run's whole-file records (run.json, attempts/, stages/, replaced/,
//! output.json) written on a thread of their own, one after the other in the order they were
//! given. The run does not wait for the disk (each record is flushed before it takes its name,
//! whole_file.rs, and a flush takes about a millisecond), yet the files land in the order the run
//! wrote them. `give` leaves a write behind: its error, naming the file, comes back from the
//! next `flush`. `wait` gives one write's own result, after everything given before it (a claim
//! whose name is taken). `flush` waits for everything given so far; dropping the writer does too.

use std::io;
use std::path::PathBuf;
use std::sync::mpsc;
use std::sync::{Arc, Mutex, MutexGuard};
use std::thread::JoinHandle;

use super::whole_file::{claim_durably, make_private_dirs, publish, write_atomically, write_whole};

/// One write of a whole record; the folders above it are made as needed.
#[derive(Debug)]
pub enum RecordWrite {
    /// `target` replaced whole and durably.
    Replace { target: PathBuf, bytes: Vec<u8> },
    /// `target` created whole and durably; `AlreadyExists` when the name is taken.
    Claim { target: PathBuf, bytes: Vec<u8> },
    /// `target` replaced whole but not flushed: a copy of what a durable record beside it holds
    /// (an attempt's ending, which output.json has too). A power cut may leave the old file or,
    /// on some file systems, an empty one; run_files.rs reads the ending from output.json then.
    Copy { target: PathBuf, bytes: Vec<u8> },
    /// `from` moved to `to`, when `from` is there.
    MoveAside { from: PathBuf, to: PathBuf },
}

impl RecordWrite {
    fn apply(self) -> io::Result<()> {
        let (target, done) = match self {
            RecordWrite::Replace { target, bytes } => {
                let done = parent_made(&target).and_then(|()| write_atomically(&target, &bytes));
                (target, done)
            }
            RecordWrite::Claim { target, bytes } => {
                let done = parent_made(&target).and_then(|()| claim_durably(&target, &bytes));
                (target, done)
            }
            RecordWrite::Copy { target, bytes } => {
                let done = parent_made(&target).and_then(|()| write_whole(&target, &bytes));
                (target, done)
            }
            RecordWrite::MoveAside { from, to } => {
                if !from.exists() {
                    return Ok(());
                }
                let done = parent_made(&to).and_then(|()| publish(&from, &to));
                (to, done)
            }
        };
        done.map_err(|e| io::Error::new(e.kind(), format!("{}: {e}", target.display())))
    }
}

fn parent_made(target: &std::path::Path) -> io::Result<()> {
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
                    for job in jobs {
                        job.run(&failed);
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
