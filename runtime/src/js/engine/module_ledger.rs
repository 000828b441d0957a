//! Which modules stay loaded when one host serves one user after another, and retiring the rest.
//!
//! `awf test` runs a worker's files one after another in one context, with the bootstrap and the
//! test framework loaded once. When the framework is ready, `keep_loaded` records the modules
//! loaded so far; after each file, `retire_unkept` retires every module loaded since: QuickJS no
//! longer finds it by its name, so the next file's import of that name loads and evaluates a
//! fresh instance, as in a context of its own.
//!
//! QuickJS has no call that unloads a module, so this reads its module records: each
//! `JSModuleDef` begins with its name atom and then its link in the context's list of loaded
//! modules (`struct JSModuleDef` in quickjs.c). Retiring sets the name to the null atom, which no
//! lookup matches and which freeing the module with its context skips. The walk starts at
//! `awf:ops`, the context's first module, whose record is taken as it is declared. The layout is
//! checked before anything is kept (that record's name must read back as `awf:ops`, and the list
//! must be a well-formed ring); when it does not hold, nothing is kept and every file gets a
//! host of its own.

use std::cell::{Cell, RefCell};
use std::collections::HashSet;
use std::ptr::NonNull;

use rquickjs::module::{Declared, ModuleDef};
use rquickjs::{qjs, Ctx, Module};

/// `struct list_head` of QuickJS's list.h.
#[repr(C)]
struct ListHead {
    prev: *mut ListHead,
    next: *mut ListHead,
}

/// The first fields of quickjs.c's `struct JSModuleDef`.
#[repr(C)]
struct ModuleRecord {
    name: qjs::JSAtom,
    link: ListHead,
}

/// More modules than any context holds: a walk that has not come round by then is not on a ring.
const MAX_MODULES: usize = 1 << 20;

/// The name the anchor module is declared under.
const ANCHOR_NAME: &std::ffi::CStr = c"awf:ops";

thread_local! {
    /// The record the anchor's declaration made, handed from the raw declare function to
    /// `declare_anchor` (QuickJS calls the one, rquickjs wraps the result for the other).
    static DECLARED: Cell<*mut qjs::JSModuleDef> = const { Cell::new(std::ptr::null_mut()) };
}

/// The modules of one context: which to keep, which are loaded now.
#[derive(Default)]
pub struct ModuleLedger {
    /// `awf:ops`'s record: where walks of the list start.
    anchor: Cell<Option<NonNull<ModuleRecord>>>,
    /// The list's nodes when the host was kept (the list's own head among them).
    kept_nodes: RefCell<Option<HashSet<usize>>>,
    /// Names of the modules loaded and not retired, and which of them are kept.
    loaded: RefCell<HashSet<String>>,
    kept_names: RefCell<HashSet<String>>,
}

/// Declares the module `D` as `awf:ops` and hands its record to `ledger`.
unsafe extern "C" fn declare_raw<D: ModuleDef>(
    ctx: *mut qjs::JSContext,
    name: *const std::ffi::c_char,
) -> *mut qjs::JSModuleDef {
    // SAFETY: QuickJS's own declare function for a Rust module, called as rquickjs documents.
    let record = unsafe { Module::init_raw::<D>(ctx, name) };
    DECLARED.with(|declared| declared.set(record));
    record
}

impl ModuleLedger {
    /// Declares the module `D` under `awf:ops`, the context's first module, and keeps its
    /// record as the start of every walk.
    pub fn declare_anchor<'js, D: ModuleDef>(
        &self,
        ctx: &Ctx<'js>,
    ) -> rquickjs::Result<Module<'js, Declared>> {
        let name = ANCHOR_NAME.to_str().expect("the anchor's name is UTF-8");
        // SAFETY: `declare_raw` returns the record QuickJS made for this context, or null.
        let module = unsafe { Module::from_load_fn(ctx.clone(), name, declare_raw::<D>) }?;
        let record = DECLARED.with(|declared| declared.replace(std::ptr::null_mut()));
        self.anchor.set(NonNull::new(record.cast()));
        self.loaded.borrow_mut().insert(name.to_string());
        Ok(module)
    }

    /// A module of this name was declared in the context.
    pub fn note_loaded(&self, name: &str) {
        self.loaded.borrow_mut().insert(name.to_string());
    }

    /// Whether a module of this name is loaded (and not retired).
    pub fn is_loaded(&self, name: &str) -> bool {
        self.loaded.borrow().contains(name)
    }

    /// Keeps every module loaded now, for every later user of the context. False when the
    /// records do not have the layout this module reads: then nothing is kept.
    pub fn keep_loaded(&self, ctx: &Ctx<'_>) -> bool {
        let Some(anchor) = self.anchor.get() else {
            return false;
        };
        let raw = ctx.as_raw().as_ptr();
        // SAFETY: the anchor is `awf:ops`'s record, which lives as long as the context (it is
        // resolved as it is declared, and QuickJS frees resolved modules only with the context).
        let named_right = unsafe {
            let atom = qjs::JS_NewAtom(raw, ANCHOR_NAME.as_ptr());
            let same = (*anchor.as_ptr()).name == atom;
            qjs::JS_FreeAtom(raw, atom);
            same
        };
        let Some(nodes) = (if named_right { ring(anchor) } else { None }) else {
            tracing::debug!("module records not as expected: test files get a context each");
            return false;
        };
        *self.kept_nodes.borrow_mut() = Some(nodes.into_iter().collect());
        *self.kept_names.borrow_mut() = self.loaded.borrow().clone();
        true
    }

    /// Whether `keep_loaded` succeeded.
    pub fn keeps(&self) -> bool {
        self.kept_nodes.borrow().is_some()
    }

    /// Retires every module loaded since `keep_loaded`; gives the names it forgot. Nothing
    /// happens before `keep_loaded`.
    pub fn retire_unkept(&self, ctx: &Ctx<'_>) -> Vec<String> {
        let kept = self.kept_nodes.borrow();
        let (Some(kept), Some(anchor)) = (kept.as_ref(), self.anchor.get()) else {
            return Vec::new();
        };
        let raw = ctx.as_raw().as_ptr();
        for node in ring(anchor).unwrap_or_default() {
            if kept.contains(&node) {
                continue;
            }
            // SAFETY: a node of the ring that was not there when the host was kept is the link
            // of a module record declared since (the list's head was there then); its record
            // starts `offset_of!(ModuleRecord, link)` bytes before it.
            unsafe {
                let record = (node as *mut u8)
                    .sub(std::mem::offset_of!(ModuleRecord, link))
                    .cast::<ModuleRecord>();
                let name = (*record).name;
                if name != qjs::JS_ATOM_NULL {
                    (*record).name = qjs::JS_ATOM_NULL;
                    qjs::JS_FreeAtom(raw, name);
                }
            }
        }
        let kept_names = self.kept_names.borrow();
        let mut loaded = self.loaded.borrow_mut();
        let forgotten = loaded
            .iter()
            .filter(|name| !kept_names.contains(*name))
            .cloned()
            .collect();
        loaded.retain(|name| kept_names.contains(name));
        forgotten
    }
}

/// The nodes of the ring `anchor`'s link is on, `anchor`'s first; `None` when the links do not
/// form a ring (a layout this module does not know).
fn ring(anchor: NonNull<ModuleRecord>) -> Option<Vec<usize>> {
    // SAFETY: every node of the context's module list is a live `list_head`: the list's head in
    // the context, or the link of a module record QuickJS has not freed (it unlinks a record
    // before freeing it).
    unsafe {
        let start: *mut ListHead = &mut (*anchor.as_ptr()).link;
        let mut nodes = vec![start as usize];
        let mut node = (*start).next;
        while node != start {
            if node.is_null() || nodes.len() > MAX_MODULES || (*(*node).prev).next != node {
                return None;
            }
            nodes.push(node as usize);
            node = (*node).next;
        }
        Some(nodes)
    }
}
