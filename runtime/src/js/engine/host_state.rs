//! The state a host's ops share, reached from any `Ctx` through `HostState::of`.
//!
//! It holds the engine's own parts (timers, async ops in flight, requests waiting for JS, source
//! maps, the exit and interrupt flags, errors nobody caught) and, for the concerns that drive
//! the host, a store of one value per type (`put`/`get`) and numbered handles (`add_handle`/
//! `handle`): the run behind a `wf`, a compiled schema, a test file's report sink. The engine
//! knows none of those types; each concern's ops keep their own.

use std::any::{Any, TypeId};
use std::cell::{Cell, RefCell};
use std::collections::HashMap;
use std::path::PathBuf;
use std::rc::Rc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use rquickjs::{Ctx, Function, JsLifetime, Persistent};
use tokio::sync::mpsc;

use super::async_context::AsyncContext;
use super::call_stop::CallStop;
use super::callbacks::Callbacks;
use super::host_event::HostEvent;
use super::module_ledger::ModuleLedger;
use super::output::ConsoleTarget;
use super::requester::{JsRequester, ReplyBook};
use super::shared_objects::SharedObjects;
use super::timers::TimerWheel;
use crate::js::errors::JsError;
use crate::js::source_map::SourceRegistry;
use crate::js::transpile::ImportSite;

/// Import sites of each loaded file module, for resolve errors.
pub type ImportSites = HashMap<String, Vec<ImportSite>>;

/// What a host is started with.
#[derive(Clone, Debug)]
pub struct HostConfig {
    /// `process.cwd()` and the base for relative paths in host APIs.
    pub cwd: PathBuf,
    /// `process.argv`.
    pub argv: Vec<String>,
    pub console: ConsoleTarget,
}

/// What `JsHost::report_uncaught` hands errors nobody caught to.
pub type UncaughtHandler = Rc<dyn Fn(JsError)>;

/// State the ops share.
pub struct HostState {
    pub config: HostConfig,
    cwd: RefCell<PathBuf>,
    /// `process.argv`: the config's, until the host's next user is given its own.
    argv: RefCell<Vec<String>>,
    pub(super) events: mpsc::UnboundedSender<HostEvent>,
    next_id: Cell<u64>,
    /// The tokio tasks of async ops in flight, aborted when the host drops.
    pub(super) op_tasks: RefCell<HashMap<u64, tokio::task::AbortHandle>>,
    pub(super) timers: RefCell<TimerWheel>,
    pub(super) callbacks: RefCell<Option<Callbacks>>,
    pub(super) replies: ReplyBook,
    pub sources: RefCell<SourceRegistry>,
    pub(crate) import_sites: RefCell<ImportSites>,
    exit_code: Cell<Option<i32>>,
    pub(super) interrupt: Arc<AtomicBool>,
    /// Stops one tool call's handler that never yields (its time is up), not the whole host.
    pub(super) call_stop: Arc<CallStop>,
    /// Rejections nobody handled yet, by promise identity.
    pub(super) unhandled: RefCell<Vec<(usize, JsError)>>,
    /// Where errors nobody caught go instead of ending the call (`JsHost::report_uncaught`).
    pub(super) uncaught: RefCell<Option<UncaughtHandler>>,
    /// The settled value of the current `call`.
    pub(super) settled: RefCell<Option<Result<Option<serde_json::Value>, JsError>>>,
    /// Which tool call and scope the running JS belongs to (async_context.rs).
    pub(super) async_context: AsyncContext,
    /// One value per type, for the concerns that drive this host.
    store: RefCell<HashMap<TypeId, Rc<dyn Any>>>,
    /// The modules loaded, and which stay for the host's next user (reuse.rs).
    pub(super) modules: ModuleLedger,
    /// What every user of the host shares, as it was when the host was kept (reuse.rs).
    pub(super) shared: RefCell<Option<SharedObjects>>,
    /// The store's types when the host was kept: those stay for its next user.
    pub(super) kept_store: RefCell<Option<Vec<TypeId>>>,
}

struct HostRef(Rc<HostState>);

unsafe impl<'js> JsLifetime<'js> for HostRef {
    type Changed<'to> = HostRef;
}

impl HostState {
    pub(super) fn new(config: HostConfig, events: mpsc::UnboundedSender<HostEvent>) -> HostState {
        HostState {
            cwd: RefCell::new(config.cwd.clone()),
            argv: RefCell::new(config.argv.clone()),
            config,
            events,
            next_id: Cell::new(0),
            op_tasks: RefCell::default(),
            timers: RefCell::default(),
            callbacks: RefCell::default(),
            replies: ReplyBook::default(),
            sources: RefCell::default(),
            import_sites: RefCell::default(),
            exit_code: Cell::new(None),
            interrupt: Arc::new(AtomicBool::new(false)),
            call_stop: Arc::default(),
            unhandled: RefCell::default(),
            uncaught: RefCell::default(),
            settled: RefCell::default(),
            async_context: AsyncContext::default(),
            store: RefCell::default(),
            modules: ModuleLedger::default(),
            shared: RefCell::default(),
            kept_store: RefCell::default(),
        }
    }

    /// Makes `state` the one every op called in `ctx` sees.
    pub(super) fn attach(ctx: &Ctx<'_>, state: Rc<HostState>) -> Result<(), JsError> {
        ctx.store_userdata(HostRef(state))
            .map(|_| ())
            .map_err(|_| JsError::internal("the context already has a host"))
    }

    pub fn of(ctx: &Ctx<'_>) -> Rc<HostState> {
        HostState::try_of(ctx).expect("every awf context carries its HostState")
    }

    /// The host of the context, if one is attached (`None` while hosts change over).
    pub(crate) fn try_of(ctx: &Ctx<'_>) -> Option<Rc<HostState>> {
        ctx.userdata::<HostRef>().map(|host| host.0.clone())
    }

    /// Lets the runtime go of this host (it keeps one host at a time).
    pub(super) fn detach(ctx: &Ctx<'_>) {
        let _ = ctx.remove_userdata::<HostRef>();
    }

    /// A number no other id of this host has (timers, ops, requests, handles).
    pub fn next_id(&self) -> u64 {
        let id = self.next_id.get() + 1;
        self.next_id.set(id);
        id
    }

    /// The directory relative paths are resolved against (`process.cwd()`).
    pub fn cwd(&self) -> PathBuf {
        self.cwd.borrow().clone()
    }

    pub fn set_cwd(&self, dir: PathBuf) {
        *self.cwd.borrow_mut() = dir;
    }

    /// `process.argv`.
    pub fn argv(&self) -> Vec<String> {
        self.argv.borrow().clone()
    }

    pub fn set_argv(&self, argv: Vec<String>) {
        *self.argv.borrow_mut() = argv;
    }

    /// Whether a module of this name is loaded in the context (and not retired).
    pub fn module_loaded(&self, name: &str) -> bool {
        self.modules.is_loaded(name)
    }

    /// The context declared a module of this name.
    pub(crate) fn note_module_loaded(&self, name: &str) {
        self.modules.note_loaded(name);
    }

    /// `process.exit(code)`: stop running JS and end the call with this code.
    pub fn request_exit(&self, code: i32) {
        self.exit_code.set(Some(code));
        self.interrupt.store(true, Ordering::SeqCst);
    }

    pub(super) fn exit_code(&self) -> Option<i32> {
        self.exit_code.get()
    }

    pub(super) fn interrupted(&self) -> bool {
        self.interrupt.load(Ordering::SeqCst)
    }

    /// No async context from now on, and no tool call's code running (after each job and
    /// callback the event loop runs).
    pub(super) fn clear_async_context(&self) {
        self.async_context.clear();
        self.call_stop.leave();
    }

    pub fn requester(&self) -> JsRequester {
        JsRequester::new(self.events.clone(), self.call_stop.clone())
    }

    /// Keeps `value` with this host for the concern driving it (the test runner's event sink,
    /// the permission gate, ...); replaces the value of the same type, if any.
    pub fn put<T: 'static>(&self, value: Rc<T>) {
        self.store.borrow_mut().insert(TypeId::of::<T>(), value);
    }

    /// The value of type `T` put with this host, if any.
    pub fn get<T: 'static>(&self) -> Option<Rc<T>> {
        let value = self.store.borrow().get(&TypeId::of::<T>())?.clone();
        value.downcast::<T>().ok()
    }

    /// The value of type `T`, put now (as `T::default()`) if there was none.
    pub fn get_or_default<T: Default + 'static>(&self) -> Rc<T> {
        if let Some(value) = self.get::<T>() {
            return value;
        }
        let value = Rc::new(T::default());
        self.put(value.clone());
        value
    }

    /// Numbers `value` for JS to name it by (a run, a compiled schema).
    pub fn add_handle<T: Clone + 'static>(&self, value: T) -> u64 {
        let id = self.next_id();
        let handles = self.get_or_default::<Handles<T>>();
        handles.0.borrow_mut().insert(id, value);
        id
    }

    /// The value numbered `id`, if it is a `T` of this host.
    pub fn handle<T: Clone + 'static>(&self, id: u64) -> Option<T> {
        self.get::<Handles<T>>()?.0.borrow().get(&id).cloned()
    }

    /// One of the callbacks, if JS has handed them over.
    pub(super) fn callback(
        &self,
        pick: impl Fn(&Callbacks) -> &Persistent<Function<'static>>,
    ) -> Option<Persistent<Function<'static>>> {
        self.callbacks.borrow().as_ref().map(|c| pick(c).clone())
    }

    /// Drops what the concerns put, and every JS value the engine keeps: nothing may outlive
    /// the runtime.
    pub(super) fn clear(&self) {
        self.callbacks.borrow_mut().take();
        self.replies.clear();
        self.unhandled.borrow_mut().clear();
        self.uncaught.borrow_mut().take();
        self.async_context.clear();
        self.store.borrow_mut().clear();
        self.shared.borrow_mut().take();
    }

    /// Drops what concerns put in the store since the host was kept.
    pub(super) fn forget_unkept_store(&self) {
        if let Some(kept) = self.kept_store.borrow().as_ref() {
            self.store.borrow_mut().retain(|key, _| kept.contains(key));
        }
    }

    /// What is in the store now stays for every later user.
    pub(super) fn keep_store(&self) {
        *self.kept_store.borrow_mut() = Some(self.store.borrow().keys().copied().collect());
    }
}

/// The values of one type numbered for JS.
struct Handles<T>(RefCell<HashMap<u64, T>>);

impl<T> Default for Handles<T> {
    fn default() -> Handles<T> {
        Handles(RefCell::default())
    }
}
