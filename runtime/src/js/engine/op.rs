//! The op contract: what a native function of `awf:ops` is, takes and gives back.
//!
//! Every op takes one argument value decoded by serde from the JS arguments (`op_args.rs`: a
//! struct from an options object, a tuple struct from positional arguments, `()` for none) and
//! returns `Result<T, OpError>` with a `T` that becomes a JS value (`IntoOpValue`). A sync op
//! runs on the JS thread and its value is the call's; an async op runs its checks on the JS
//! thread (so order and errors are those of the call), then gives a `Send` future that the host
//! runs on tokio, and the call returns the op's id, which js/core.ts's `opAsync` turns into the
//! promise the future's value settles. `sync_op!(f)` and `async_op!(f)` declare an op from a
//! function of that shape, under the function's name: the name JS calls it by, declared once.
//!
//! The engine is handed the table of ops when a host is built (`OpTable`); it names none itself
//! beyond its own primitives (primitives.rs).

use std::future::Future;
use std::rc::Rc;

use serde::de::DeserializeOwned;

use super::host_state::HostState;
use super::op_args::OpArgs;
use super::op_value::{IntoOpValue, OpError, OpFuture, OpResult};

/// One native function of `awf:ops`.
pub struct OpDecl {
    pub name: &'static str,
    pub kind: OpKind,
}

pub enum OpKind {
    Sync(SyncOp),
    Async(AsyncOp),
}

/// The ops of one part of awf: one list per file.
pub type OpGroup = &'static [&'static [OpDecl]];
/// The ops a host serves: its parts' groups.
pub type OpTable = &'static [OpGroup];

/// A sync op, type-erased: its arguments decoded, its value out.
pub type SyncOp = for<'a, 'js> fn(&Rc<HostState>, OpArgs<'a, 'js>) -> OpResult;
/// An async op, type-erased: its checks done, the future to run.
pub type AsyncOp = for<'a, 'js> fn(&Rc<HostState>, OpArgs<'a, 'js>) -> Result<OpFuture, OpError>;

/// Decodes the arguments for `op` and runs it (what `sync_op!` expands to).
pub fn run_sync<A, T>(
    op: fn(&Rc<HostState>, A) -> Result<T, OpError>,
    state: &Rc<HostState>,
    args: OpArgs<'_, '_>,
) -> OpResult
where
    A: DeserializeOwned,
    T: IntoOpValue,
{
    let args = args.decode::<A>()?;
    op(state, args).map(IntoOpValue::into_op_value)
}

/// Decodes the arguments for `op`, runs its checks and boxes its future (what `async_op!`
/// expands to).
pub fn start_async<A, F, T>(
    op: fn(&Rc<HostState>, A) -> Result<F, OpError>,
    state: &Rc<HostState>,
    args: OpArgs<'_, '_>,
) -> Result<OpFuture, OpError>
where
    A: DeserializeOwned,
    F: Future<Output = Result<T, OpError>> + Send + 'static,
    T: IntoOpValue,
{
    let args = args.decode::<A>()?;
    let future = op(state, args)?;
    Ok(Box::pin(async move {
        future.await.map(IntoOpValue::into_op_value)
    }))
}

/// Declares a sync op: `sync_op!(timer_start)` serves `fn timer_start(&Rc<HostState>, A) ->
/// Result<T, OpError>` as `awf:ops`'s `timer_start`.
macro_rules! sync_op {
    ($op:ident) => {
        $crate::js::engine::OpDecl {
            name: stringify!($op),
            kind: $crate::js::engine::OpKind::Sync(|state, args| {
                $crate::js::engine::run_sync($op, state, args)
            }),
        }
    };
}

/// Declares an async op: `async_op!(fs_async)` serves `fn fs_async(&Rc<HostState>, A) ->
/// Result<impl Future<Output = Result<T, OpError>>, OpError>`.
macro_rules! async_op {
    ($op:ident) => {
        $crate::js::engine::OpDecl {
            name: stringify!($op),
            kind: $crate::js::engine::OpKind::Async(|state, args| {
                $crate::js::engine::start_async($op, state, args)
            }),
        }
    };
}

pub(crate) use {async_op, sync_op};
