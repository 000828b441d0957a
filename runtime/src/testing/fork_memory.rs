//! Making a fork of the runner cheap to start (pool.rs forks the runner once per test file).
//!
//! Measured on a loaded 2-core VM, a fork that runs one small test file takes about 350 page
//! faults, at several microseconds each, which was most of the file's cost:
//!
//! - The binary's code and read-only data: Linux copies the page table of a file mapping into
//!   a fork only when the mapping has anonymous pages, so every fork faulted back in the code
//!   the runner had already mapped. `share_code_with_forks` gives those mappings an anonymous
//!   page (one page of each is written with its own bytes, under `mprotect`), after which each
//!   fork inherits the runner's mapped code and data.
//! - The heap: the file's first write to each page of the loaded engine copies it, one fault a
//!   page. `Heap::populate`, in the fork, copies them all in one call (`MADV_POPULATE_WRITE`).
//!
//! Both are only speed: when the system refuses either (no `/proc`, a kernel before 5.14, a
//! policy against writable code), the forks fault as they did.

use std::path::Path;

/// The runner's heap ranges (anonymous, writable, private), as they are when it forks.
pub(super) struct Heap {
    ranges: Vec<(usize, usize)>,
}

/// One line of /proc/self/maps: start, end, permissions, path.
struct Mapping<'a> {
    start: usize,
    end: usize,
    perms: &'a str,
    path: &'a str,
}

fn mappings(maps: &str) -> Vec<Mapping<'_>> {
    maps.lines()
        .filter_map(|line| {
            let mut fields = line.split_whitespace();
            let range = fields.next()?;
            let perms = fields.next()?;
            let path = fields.nth(3).unwrap_or("");
            let (start, end) = range.split_once('-')?;
            Some(Mapping {
                start: usize::from_str_radix(start, 16).ok()?,
                end: usize::from_str_radix(end, 16).ok()?,
                perms,
                path,
            })
        })
        .collect()
}

/// Reads the runner's mappings once, before its first fork: gives the executable's code and
/// read-only data an anonymous page each, and gives back the heap ranges forks populate.
pub(super) fn prepare_forks() -> Heap {
    let Ok(maps) = std::fs::read_to_string("/proc/self/maps") else {
        return Heap { ranges: Vec::new() };
    };
    let exe = std::env::current_exe().ok();
    let mut ranges = Vec::new();
    for mapping in mappings(&maps) {
        let ours = exe
            .as_deref()
            .is_some_and(|exe| Path::new(mapping.path) == exe);
        match mapping.perms {
            "r-xp" | "r--p" if ours => share_code_with_forks(&mapping),
            "rw-p" if mapping.path.is_empty() || mapping.path == "[heap]" => {
                ranges.push((mapping.start, mapping.end))
            }
            _ => {}
        }
    }
    Heap { ranges }
}

/// Writes the first page of a read-only private mapping of the executable with its own bytes,
/// so the mapping has an anonymous page and forks inherit its page table.
fn share_code_with_forks(mapping: &Mapping<'_>) {
    let page = mapping.start as *mut libc::c_void;
    let size = page_size();
    if mapping.end - mapping.start < size {
        return;
    }
    let restore = if mapping.perms == "r-xp" {
        libc::PROT_READ | libc::PROT_EXEC
    } else {
        libc::PROT_READ
    };
    // SAFETY: the page is mapped (read from /proc/self/maps of this process, which runs one
    // thread now); it is made writable, each byte written with the value it holds, and given
    // its protection back: its content never changes. Code running from it meanwhile still
    // reads the same bytes.
    unsafe {
        if libc::mprotect(page, size, restore | libc::PROT_WRITE) != 0 {
            return;
        }
        let bytes = page.cast::<u8>();
        std::ptr::write_volatile(bytes, std::ptr::read_volatile(bytes));
        libc::mprotect(page, size, restore);
    }
}

fn page_size() -> usize {
    // SAFETY: a plain query.
    let size = unsafe { libc::sysconf(libc::_SC_PAGESIZE) };
    usize::try_from(size).unwrap_or(4096)
}

impl Heap {
    /// In a fork: copies the runner's heap pages now, in one call per range, instead of one
    /// fault per page as the file first writes each.
    pub(super) fn populate(&self) {
        for &(start, end) in &self.ranges {
            // SAFETY: the range was mapped when the runner forked, so it is in this fork too;
            // populating changes no byte of it.
            unsafe {
                libc::madvise(
                    start as *mut libc::c_void,
                    end - start,
                    libc::MADV_POPULATE_WRITE,
                );
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn maps_lines_are_read_with_and_without_a_path() {
        let maps = "00400000-00452000 r-xp 00000000 08:02 173521 /usr/bin/awf\n\
                    01588000-01589000 rw-p 00000000 00:00 0 \n\
                    12310000-123ec000 rw-p 00000000 00:00 0 [heap]\n";
        let read = mappings(maps);
        assert_eq!(read.len(), 3);
        assert_eq!((read[0].start, read[0].end), (0x400000, 0x452000));
        assert_eq!((read[0].perms, read[0].path), ("r-xp", "/usr/bin/awf"));
        assert_eq!(read[1].path, "");
        assert_eq!(read[2].path, "[heap]");
    }

    #[test]
    fn preparing_forks_keeps_the_code_running_and_finds_the_heap() {
        let heap = prepare_forks();
        assert!(!heap.ranges.is_empty());
        // The code pages were written with their own bytes: this still runs.
        assert_eq!(page_size() % 4096, 0);
        heap.populate();
    }
}
