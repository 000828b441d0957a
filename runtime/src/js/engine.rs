//! The engine's owner: one QuickJS runtime and context, the state its ops share, and the event
//! loop that drives them.
//!
//! Everything JS runs on the thread that calls `JsHost::call`. Async ops run on tokio and come
//! back as `HostEvent`s; timers live in a wheel here; Rust services ask JS to run something (a
//! tool handler) through a `JsRequester`. The loop ends when the called function settles (even
//! with timers or ops still pending: dropping the host drops them, and aborts op tasks), when
//! `process.exit` is called, when an error goes uncaught (unless `report_uncaught` takes such
//! errors), or when nothing is left that could ever settle it (no op, no ref'd timer, no queued
//! job): a stall is reported, never a hang.
//!
//! Drop order matters to QuickJS: persistent values first, then the context, then the runtime.

use std::any::{Any, TypeId};
use std::cell::{Cell, RefCell};
use std::collections::{BTreeMap, HashMap};
use std::path::PathBuf;
use std::rc::Rc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use rquickjs::function::Rest;
use rquickjs::{
    qjs, CatchResultExt, CaughtError, Context, Ctx, Function, JsLifetime, Object, Persistent,
    Runtime, TypedArray, Value,
};
use tokio::sync::{mpsc, oneshot};

use super::convert;
use super::errors::JsError;
use super::host::permissions::Permissions;
use super::host::HostResources;
use super::loader::{AwfLoader, AwfResolver};
use super::ops::{self, OpError, OpResult, OpValue};
use super::source_map::SourceRegistry;
use crate::schema::Schema;
use crate::workflow::Run;

/// Where console output goes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ConsoleTarget {
    /// log/info/debug to stdout, warn/error to stderr (tests, scripts).
    Split,
    /// Everything to stderr: stdout carries only a workflow's result.
    Stderr,
    /// As `Split`, but each write goes to this sink with its stream, in order, instead of the
    /// process's stdout and stderr: `awf test` keeps a file's output with its results.
    Capture(OutputSink),
}

/// The stream a write was meant for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OutputStream {
    Stdout,
    Stderr,
}

/// Receives a host's console and process.stdout/stderr text (`ConsoleTarget::Capture`).
#[derive(Clone)]
pub struct OutputSink(Rc<WriteOutput>);

type WriteOutput = dyn Fn(OutputStream, &str);

/// What `JsHost::report_uncaught` hands errors nobody caught to.
type UncaughtHandler = Rc<dyn Fn(JsError)>;

impl OutputSink {
    pub fn new(write: impl Fn(OutputStream, &str) + 'static) -> OutputSink {
        OutputSink(Rc::new(write))
    }

    pub fn write(&self, stream: OutputStream, text: &str) {
        (self.0)(stream, text)
    }
}

impl std::fmt::Debug for OutputSink {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("OutputSink")
    }
}

impl PartialEq for OutputSink {
    fn eq(&self, other: &OutputSink) -> bool {
        Rc::ptr_eq(&self.0, &other.0)
    }
}

impl Eq for OutputSink {}

/// Heap size at which a host first collects garbage; after each collection QuickJS sets the
/// next at 1.5 times what is still in use.
const GC_THRESHOLD: usize = 8 * 1024 * 1024;

/// What a host is started with.
#[derive(Clone, Debug)]
pub struct HostConfig {
    /// `process.cwd()` and the base for relative paths in host APIs.
    pub cwd: PathBuf,
    /// `process.argv`.
    pub argv: Vec<String>,
    pub console: ConsoleTarget,
}

/// How a call into JS ended.
#[derive(Debug)]
pub enum CallEnd {
    /// The function's value, as JSON (`None` for undefined).
    Returned(Option<serde_json::Value>),
    Threw(JsError),
    /// `process.exit(code)` was called.
    Exited(i32),
    /// Nothing could ever settle the call.
    Stalled,
    /// The host was interrupted (deadline, cancellation) before the call settled.
    Interrupted,
}

/// An answer from JS to a `JsRequester::request`.
pub type JsReply = Result<Option<serde_json::Value>, JsFailure>;

/// Why JS could not answer a request.
#[derive(Debug, Clone)]
pub enum JsFailure {
    /// The handler threw or its promise rejected.
    Threw(JsError),
    /// The handler's value is not JSON (`NotJson` text).
    NotJson(String),
    /// The host is gone (the run ended).
    HostGone,
}

pub(crate) enum HostEvent {
    OpDone {
        id: u64,
        result: OpResult,
    },
    Request {
        kind: String,
        payload: serde_json::Value,
        reply: oneshot::Sender<JsReply>,
    },
}

/// A `Send` handle for Rust tasks that need JS to run something and answer.
#[derive(Clone)]
pub struct JsRequester {
    events: mpsc::UnboundedSender<HostEvent>,
}

impl JsRequester {
    /// Asks the JS handler registered for `kind` (see `onRequest` in js/core.ts) and waits.
    pub async fn request(&self, kind: &str, payload: serde_json::Value) -> JsReply {
        let (reply, answer) = oneshot::channel();
        let event = HostEvent::Request {
            kind: kind.to_string(),
            payload,
            reply,
        };
        if self.events.send(event).is_err() {
            return Err(JsFailure::HostGone);
        }
        answer.await.unwrap_or(Err(JsFailure::HostGone))
    }
}

/// The JS functions of `awf:core` the host calls.
struct Callbacks {
    complete: Persistent<Function<'static>>,
    fire_timer: Persistent<Function<'static>>,
    request: Persistent<Function<'static>>,
}

#[derive(Clone, Copy)]
struct Timer {
    at: Instant,
    every: Option<Duration>,
    refed: bool,
}

#[derive(Default)]
struct Timers {
    by_time: BTreeMap<(Instant, u64), ()>,
    by_id: HashMap<u64, Timer>,
}

impl Timers {
    fn insert(&mut self, id: u64, timer: Timer) {
        self.by_time.insert((timer.at, id), ());
        self.by_id.insert(id, timer);
    }

    fn remove(&mut self, id: u64) -> Option<Timer> {
        let timer = self.by_id.remove(&id)?;
        self.by_time.remove(&(timer.at, id));
        Some(timer)
    }

    fn next_at(&self) -> Option<Instant> {
        self.by_time.keys().next().map(|(at, _)| *at)
    }

    /// The earliest timer due at `now`, rescheduled if it repeats.
    fn pop_due(&mut self, now: Instant) -> Option<u64> {
        let (at, id) = *self.by_time.keys().next()?;
        if at > now {
            return None;
        }
        let timer = self.remove(id)?;
        if let Some(every) = timer.every {
            self.insert(
                id,
                Timer {
                    at: now + every,
                    ..timer
                },
            );
        }
        Some(id)
    }

    fn any_refed(&self) -> bool {
        self.by_id.values().any(|t| t.refed)
    }
}

/// State the ops share; reached from any `Ctx` through `HostState::of`.
pub struct HostState {
    pub config: HostConfig,
    cwd: RefCell<PathBuf>,
    events: mpsc::UnboundedSender<HostEvent>,
    next_id: Cell<u64>,
    ops_in_flight: Cell<usize>,
    /// The tokio tasks of async ops in flight, aborted when the host drops.
    op_tasks: RefCell<HashMap<u64, tokio::task::AbortHandle>>,
    timers: RefCell<Timers>,
    callbacks: RefCell<Option<Callbacks>>,
    replies: RefCell<HashMap<u64, oneshot::Sender<JsReply>>>,
    pub sources: RefCell<SourceRegistry>,
    pub schemas: RefCell<Vec<Arc<Schema>>>,
    pub(super) import_sites: RefCell<super::loader::ImportSites>,
    runs: RefCell<HashMap<u64, Arc<Run>>>,
    exit_code: Cell<Option<i32>>,
    interrupt: Arc<AtomicBool>,
    /// Rejections nobody handled yet, by promise identity.
    unhandled: RefCell<Vec<(usize, JsError)>>,
    /// Where errors nobody caught go instead of ending the call (`JsHost::report_uncaught`).
    uncaught: RefCell<Option<UncaughtHandler>>,
    /// Per-host state of the concern that drives this host (one value per type), for its ops.
    concern_state: RefCell<HashMap<TypeId, Rc<dyn Any>>>,
    /// The settled value of the current `call`.
    settled: RefCell<Option<Result<Option<serde_json::Value>, JsError>>>,
    /// What host APIs may touch (host/permissions.rs): the one gate.
    pub permissions: Permissions,
    /// Child processes and HTTP exchanges host APIs keep open; closed when the host drops.
    pub(crate) resources: RefCell<HostResources>,
}

struct HostRef(Rc<HostState>);

unsafe impl<'js> JsLifetime<'js> for HostRef {
    type Changed<'to> = HostRef;
}

impl HostState {
    pub fn of(ctx: &Ctx<'_>) -> Rc<HostState> {
        ctx.userdata::<HostRef>()
            .expect("every awf context carries its HostState")
            .0
            .clone()
    }

    fn next_id(&self) -> u64 {
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

    /// Starts an async op: its future runs on tokio and reports back as an event.
    pub fn start_async(
        self: &Rc<Self>,
        name: &str,
        args: serde_json::Value,
        bytes: Option<Vec<u8>>,
    ) -> Result<u64, OpError> {
        let op = ops::find_async(name)
            .ok_or_else(|| OpError::new("internal", format!("no async op {name}")))?;
        let future = op(self, args, bytes)?;
        let id = self.next_id();
        self.ops_in_flight.set(self.ops_in_flight.get() + 1);
        let events = self.events.clone();
        let task = tokio::spawn(async move {
            let result = future.await;
            let _ = events.send(HostEvent::OpDone { id, result });
        });
        self.op_tasks.borrow_mut().insert(id, task.abort_handle());
        Ok(id)
    }

    pub fn start_timer(&self, delay: Duration, repeat: bool) -> u64 {
        let id = self.next_id();
        let timer = Timer {
            at: Instant::now() + delay,
            every: repeat.then_some(delay.max(Duration::from_millis(1))),
            refed: true,
        };
        self.timers.borrow_mut().insert(id, timer);
        id
    }

    pub fn clear_timer(&self, id: u64) {
        self.timers.borrow_mut().remove(id);
    }

    pub fn set_timer_ref(&self, id: u64, refed: bool) {
        if let Some(timer) = self.timers.borrow_mut().by_id.get_mut(&id) {
            timer.refed = refed;
        }
    }

    pub fn set_callbacks<'js>(&self, ctx: &Ctx<'js>, object: Object<'js>) -> rquickjs::Result<()> {
        let get = |name: &str| -> rquickjs::Result<Persistent<Function<'static>>> {
            Ok(Persistent::save(ctx, object.get::<_, Function>(name)?))
        };
        *self.callbacks.borrow_mut() = Some(Callbacks {
            complete: get("complete")?,
            fire_timer: get("fire_timer")?,
            request: get("request")?,
        });
        Ok(())
    }

    /// Sends JS's answer to the request `reply_id`.
    pub fn reply(&self, reply_id: u64, reply: JsReply) {
        if let Some(sender) = self.replies.borrow_mut().remove(&reply_id) {
            let _ = sender.send(reply);
        }
    }

    /// `process.exit(code)`: stop running JS and end the call with this code.
    pub fn request_exit(&self, code: i32) {
        self.exit_code.set(Some(code));
        self.interrupt.store(true, Ordering::SeqCst);
    }

    pub fn requester(&self) -> JsRequester {
        JsRequester {
            events: self.events.clone(),
        }
    }

    /// Makes a run reachable from JS by a handle.
    pub fn add_run(&self, run: Arc<Run>) -> u64 {
        let handle = self.next_id();
        self.runs.borrow_mut().insert(handle, run);
        handle
    }

    pub fn run(&self, handle: u64) -> Option<Arc<Run>> {
        self.runs.borrow().get(&handle).cloned()
    }

    /// Keeps `value` with this host for the ops of the concern driving it (the test runner's
    /// event sink, ...); replaces the value of the same type, if any.
    pub fn put<T: 'static>(&self, value: Rc<T>) {
        self.concern_state
            .borrow_mut()
            .insert(TypeId::of::<T>(), value);
    }

    /// The value of type `T` put with this host, if any.
    pub fn get<T: 'static>(&self) -> Option<Rc<T>> {
        let value = self.concern_state.borrow().get(&TypeId::of::<T>())?.clone();
        value.downcast::<T>().ok()
    }

    fn settle(&self, result: Result<Option<serde_json::Value>, JsError>) {
        *self.settled.borrow_mut() = Some(result);
    }

    fn uncaught_handler(&self) -> Option<UncaughtHandler> {
        self.uncaught.borrow().clone()
    }
}

/// A JS engine with awf's host installed.
pub struct JsHost {
    state: Rc<HostState>,
    events: mpsc::UnboundedReceiver<HostEvent>,
    context: Context,
    runtime: Runtime,
}

impl JsHost {
    pub fn new(config: HostConfig) -> Result<JsHost, JsError> {
        let runtime = Runtime::new().map_err(|e| JsError::internal(&e.to_string()))?;
        runtime.set_max_stack_size(4 * 1024 * 1024);
        // QuickJS collects from 256 KiB on, which the built-ins alone pass: most hosts (a test
        // file, a short workflow) would collect several times for little.
        runtime.set_gc_threshold(GC_THRESHOLD);
        let context = Context::full(&runtime).map_err(|e| JsError::internal(&e.to_string()))?;
        let (events_tx, events) = mpsc::unbounded_channel();
        let interrupt = Arc::new(AtomicBool::new(false));
        let state = Rc::new(HostState {
            cwd: RefCell::new(config.cwd.clone()),
            config,
            events: events_tx,
            next_id: Cell::new(0),
            ops_in_flight: Cell::new(0),
            op_tasks: RefCell::default(),
            timers: RefCell::default(),
            callbacks: RefCell::default(),
            replies: RefCell::default(),
            sources: RefCell::default(),
            schemas: RefCell::default(),
            import_sites: RefCell::default(),
            runs: RefCell::default(),
            exit_code: Cell::new(None),
            interrupt: interrupt.clone(),
            unhandled: RefCell::default(),
            uncaught: RefCell::default(),
            concern_state: RefCell::default(),
            settled: RefCell::default(),
            permissions: Permissions::allow_all(),
            resources: RefCell::default(),
        });
        runtime.set_loader(
            AwfResolver::new(state.clone()),
            AwfLoader::new(state.clone()),
        );
        runtime.set_interrupt_handler(Some(Box::new(move || interrupt.load(Ordering::SeqCst))));
        let tracker_state = state.clone();
        runtime.set_host_promise_rejection_tracker(Some(Box::new(
            move |ctx, promise, reason, handled| {
                let id = unsafe { qjs::JS_VALUE_GET_PTR(promise.as_raw()) } as usize;
                if handled {
                    tracker_state
                        .unhandled
                        .borrow_mut()
                        .retain(|(p, _)| *p != id);
                } else {
                    // Read before borrowing: reading the reason runs JS (getters, the stack).
                    let error = JsError::from_value(&ctx, &reason);
                    tracker_state.unhandled.borrow_mut().push((id, error));
                }
            },
        )));
        let host = JsHost {
            state,
            events,
            context,
            runtime,
        };
        host.context.with(|ctx| -> Result<(), JsError> {
            ctx.store_userdata(HostRef(host.state.clone()))
                .map_err(|_| JsError::internal("the context already has a host"))?;
            Ok(())
        })?;
        host.bootstrap()?;
        Ok(host)
    }

    /// Loads `awf:bootstrap`, which installs the globals.
    fn bootstrap(&self) -> Result<(), JsError> {
        self.context.with(|ctx| {
            let promise = rquickjs::Module::import(&ctx, "awf:bootstrap")
                .catch(&ctx)
                .map_err(|e| JsError::from_caught(&ctx, e))?;
            while ctx.execute_pending_job() {}
            match promise.result::<Value>() {
                Some(Ok(_)) => Ok(()),
                Some(Err(e)) => Err(JsError::from_caught(&ctx, CaughtError::from_error(&ctx, e))),
                None => Err(JsError::internal("awf:bootstrap did not finish loading")),
            }
        })
    }

    pub fn state(&self) -> &Rc<HostState> {
        &self.state
    }

    pub fn requester(&self) -> JsRequester {
        self.state.requester()
    }

    /// Sends errors nobody caught (a rejection nobody handled, a throw out of a timer or op
    /// callback) to `handler`, and lets the call go on; by default such an error ends the call.
    pub fn report_uncaught(&self, handler: impl Fn(JsError) + 'static) {
        *self.state.uncaught.borrow_mut() = Some(Rc::new(handler));
    }

    /// A flag that, once set, stops running JS at its next check (deadline, cancellation).
    pub fn interrupt_flag(&self) -> Arc<AtomicBool> {
        self.state.interrupt.clone()
    }

    /// Calls `export` of the module `module` with `args` (JSON) and runs the event loop until the
    /// call settles, the code exits, or nothing could settle it any more.
    pub async fn call(&mut self, module: &str, export: &str, args: serde_json::Value) -> CallEnd {
        *self.state.settled.borrow_mut() = None;
        let started = self.context.with(|ctx| -> Result<(), JsError> {
            let mut options = rquickjs::context::EvalOptions::default();
            options.global = true;
            options.filename = Some("awf:call".into());
            let start: Function = ctx
                .eval_with_options(START_CALL, options)
                .catch(&ctx)
                .map_err(|e| JsError::from_caught(&ctx, e))?;
            let settle = settle_function(&ctx, self.state.clone())
                .map_err(|e| JsError::internal(&e.to_string()))?;
            let args =
                convert::to_js(&ctx, &args).map_err(|e| JsError::internal(&e.to_string()))?;
            start
                .call::<_, ()>((module, export, args, settle))
                .catch(&ctx)
                .map_err(|e| JsError::from_caught(&ctx, e))
        });
        if let Err(error) = started {
            return CallEnd::Threw(error);
        }
        self.run_event_loop().await
    }

    async fn run_event_loop(&mut self) -> CallEnd {
        loop {
            if let Some(end) = self.drain_jobs() {
                return end;
            }
            if let Some(end) = self.finished() {
                return end;
            }
            // Bound first: the callback may start or clear timers, which borrows the wheel again.
            let due = self.state.timers.borrow_mut().pop_due(Instant::now());
            if let Some(id) = due {
                self.fire_timer(id);
                continue;
            }
            match self.events.try_recv() {
                Ok(event) => {
                    self.handle(event);
                    continue;
                }
                Err(mpsc::error::TryRecvError::Empty) => {}
                Err(mpsc::error::TryRecvError::Disconnected) => return CallEnd::Stalled,
            }
            if self.stalled() {
                return CallEnd::Stalled;
            }
            let next_timer = self.state.timers.borrow().next_at();
            tokio::select! {
                event = self.events.recv() => match event {
                    Some(event) => self.handle(event),
                    None => return CallEnd::Stalled,
                },
                _ = sleep_until(next_timer), if next_timer.is_some() => {}
            }
        }
    }

    fn stalled(&self) -> bool {
        self.state.ops_in_flight.get() == 0
            && !self.state.timers.borrow().any_refed()
            && !self.runtime.is_job_pending()
    }

    /// Runs queued promise jobs; a job that throws is an unhandled error of the call.
    fn drain_jobs(&self) -> Option<CallEnd> {
        loop {
            match self.runtime.execute_pending_job() {
                Ok(true) => continue,
                Ok(false) => return None,
                Err(job) => {
                    if self.state.interrupt.load(Ordering::SeqCst) {
                        return Some(self.interrupted());
                    }
                    let error = job.0.with(|ctx| JsError::from_value(&ctx, &ctx.catch()));
                    return Some(CallEnd::Threw(error));
                }
            }
        }
    }

    fn interrupted(&self) -> CallEnd {
        match self.state.exit_code.get() {
            Some(code) => CallEnd::Exited(code),
            None => CallEnd::Interrupted,
        }
    }

    fn finished(&self) -> Option<CallEnd> {
        if let Some(code) = self.state.exit_code.get() {
            return Some(CallEnd::Exited(code));
        }
        if self.state.interrupt.load(Ordering::SeqCst) {
            return Some(CallEnd::Interrupted);
        }
        let unhandled: Vec<JsError> = self
            .state
            .unhandled
            .borrow_mut()
            .drain(..)
            .map(|(_, error)| error.unhandled_rejection())
            .collect();
        match self.state.uncaught_handler() {
            Some(handler) => unhandled.into_iter().for_each(|error| handler(error)),
            None => {
                if let Some(error) = unhandled.into_iter().next() {
                    return Some(CallEnd::Threw(error));
                }
            }
        }
        match self.state.settled.borrow_mut().take() {
            Some(Ok(value)) => Some(CallEnd::Returned(value)),
            Some(Err(error)) => Some(CallEnd::Threw(error)),
            None => None,
        }
    }

    fn callback(
        &self,
        pick: impl Fn(&Callbacks) -> &Persistent<Function<'static>>,
    ) -> Option<Persistent<Function<'static>>> {
        self.state
            .callbacks
            .borrow()
            .as_ref()
            .map(|c| pick(c).clone())
    }

    fn fire_timer(&self, id: u64) {
        let Some(fire) = self.callback(|c| &c.fire_timer) else {
            return;
        };
        self.context.with(|ctx| {
            if let Ok(fire) = fire.restore(&ctx) {
                if let Err(e) = fire.call::<_, ()>((id as f64,)).catch(&ctx) {
                    self.record_uncaught(&ctx, e);
                }
            }
        });
    }

    fn handle(&self, event: HostEvent) {
        match event {
            HostEvent::OpDone { id, result } => {
                self.state
                    .ops_in_flight
                    .set(self.state.ops_in_flight.get().saturating_sub(1));
                self.state.op_tasks.borrow_mut().remove(&id);
                let Some(complete) = self.callback(|c| &c.complete) else {
                    return;
                };
                self.context.with(|ctx| {
                    let call = || -> rquickjs::Result<()> {
                        let complete = complete.restore(&ctx)?;
                        let (ok, value) = match result {
                            Ok(value) => (true, op_value_to_js(&ctx, value)?),
                            Err(error) => (false, op_error_to_js(&ctx, &error)?),
                        };
                        complete.call::<_, ()>((id as f64, ok, value))
                    };
                    if let Err(e) = call().catch(&ctx) {
                        self.record_uncaught(&ctx, e);
                    }
                });
            }
            HostEvent::Request {
                kind,
                payload,
                reply,
            } => {
                let Some(request) = self.callback(|c| &c.request) else {
                    let _ = reply.send(Err(JsFailure::HostGone));
                    return;
                };
                let reply_id = self.state.next_id();
                self.state.replies.borrow_mut().insert(reply_id, reply);
                self.context.with(|ctx| {
                    let call = || -> rquickjs::Result<()> {
                        let request = request.restore(&ctx)?;
                        let payload = convert::to_js(&ctx, &payload)?;
                        request.call::<_, ()>((kind.as_str(), payload, reply_id as f64))
                    };
                    if let Err(e) = call().catch(&ctx) {
                        let error = JsError::from_caught(&ctx, e);
                        self.state.reply(reply_id, Err(JsFailure::Threw(error)));
                    }
                });
            }
        }
    }

    /// An exception thrown straight out of a host callback: the call fails with it, unless
    /// uncaught errors are reported elsewhere.
    fn record_uncaught<'js>(&self, ctx: &Ctx<'js>, error: CaughtError<'js>) {
        if self.state.interrupt.load(Ordering::SeqCst) {
            return;
        }
        let error = JsError::from_caught(ctx, error);
        match self.state.uncaught_handler() {
            Some(handler) => handler(error),
            None => self.state.settle(Err(error)),
        }
    }
}

impl Drop for JsHost {
    fn drop(&mut self) {
        // Work the code started dies with it: an op's task (and a child it owns) is aborted.
        for (_, task) in self.state.op_tasks.borrow_mut().drain() {
            task.abort();
        }
        // Persistent values must not outlive the runtime (QuickJS asserts on it).
        self.state.callbacks.borrow_mut().take();
        self.state.replies.borrow_mut().clear();
        self.state.unhandled.borrow_mut().clear();
        self.state.uncaught.borrow_mut().take();
        self.state.concern_state.borrow_mut().clear();
    }
}

/// Starts one call: import the module, call its export, report the outcome through `settle`.
const START_CALL: &str = r#"(module, name, args, settle) => {
  import(module)
    .then((m) => m[name](args))
    .then((value) => settle(true, value), (error) => settle(false, error));
}"#;

/// The native function a call's promise settles through: its JSON value or its error.
fn settle_function<'js>(ctx: &Ctx<'js>, state: Rc<HostState>) -> rquickjs::Result<Function<'js>> {
    Function::new(ctx.clone(), move |ctx: Ctx<'js>, args: Rest<Value<'js>>| {
        let ok = ops::arg(&ctx, &args, 0).as_bool().unwrap_or(false);
        let value = ops::arg(&ctx, &args, 1);
        let result = if ok {
            convert::to_json(&value).map_err(|e| {
                JsError::message(
                    "TypeError",
                    &format!("the call returned a value that is not JSON: {e}"),
                )
            })
        } else {
            Err(JsError::from_value(&ctx, &value))
        };
        state.settle(result);
    })
}

async fn sleep_until(at: Option<Instant>) {
    match at {
        Some(at) => tokio::time::sleep_until(at.into()).await,
        None => std::future::pending().await,
    }
}

pub(crate) fn op_value_to_js<'js>(ctx: &Ctx<'js>, value: OpValue) -> rquickjs::Result<Value<'js>> {
    match value {
        OpValue::Undefined => Ok(Value::new_undefined(ctx.clone())),
        OpValue::Json(json) => convert::to_js(ctx, &json),
        OpValue::Bytes(bytes) => Ok(TypedArray::<u8>::new(ctx.clone(), bytes)?.into_value()),
    }
}

fn op_error_to_js<'js>(ctx: &Ctx<'js>, error: &OpError) -> rquickjs::Result<Value<'js>> {
    let object = Object::new(ctx.clone())?;
    object.set("code", error.code.as_str())?;
    object.set("message", error.message.as_str())?;
    if let Some(data) = &error.data {
        object.set("data", convert::to_js(ctx, data)?)?;
    }
    Ok(object.into_value())
}
