//! The random-bytes op behind js/host/crypto.ts (`crypto.getRandomValues`, `crypto.randomUUID`),
//! from the operating system's CSPRNG.

use std::rc::Rc;

use rquickjs::function::Rest;
use rquickjs::{Ctx, TypedArray, Value};

use crate::js::engine::HostState;
use crate::js::ops::{arg, number, Op, OpDecl};

pub const OPS: &[OpDecl] = &[OpDecl {
    name: "random_bytes",
    op: Op::Sync(random_bytes),
}];

/// Most bytes one call gives (Web Crypto's quota for getRandomValues; JS checks it first).
const MAX_RANDOM_BYTES: usize = 65536;

fn random_bytes<'js>(
    ctx: &Ctx<'js>,
    _: &Rc<HostState>,
    args: Rest<Value<'js>>,
) -> rquickjs::Result<Value<'js>> {
    let count = (number(&arg(ctx, &args, 0)).max(0.0) as usize).min(MAX_RANDOM_BYTES);
    let mut bytes = vec![0u8; count];
    getrandom::fill(&mut bytes).map_err(|e| {
        rquickjs::Exception::throw_internal(ctx, &format!("no random bytes from the system: {e}"))
    })?;
    Ok(TypedArray::<u8>::new(ctx.clone(), bytes)?.into_value())
}
