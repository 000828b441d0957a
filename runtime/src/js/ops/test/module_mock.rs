//! The op of `mock.module` (js/test/mock.ts): registers a module's stand-in with the host's
//! `ModuleMocks` (runtime/src/js/module_mocks.rs), which the resolver consults.

use std::rc::Rc;

use serde::Deserialize;

use crate::js::engine::{sync_op, HostState, OpDecl, OpError};
use crate::js::loader::resolve_for_mock;
use crate::js::module_mocks::ModuleMocks;

pub const OPS: &[OpDecl] = &[sync_op!(test_mock_module)];

#[derive(Deserialize)]
struct MockModule(String, String, Vec<String>);

/// `test_mock_module(specifier, from, keys)`: the module `specifier` names when imported from
/// the file `from` (or, when there is none, the module of that name from now on) is replaced,
/// for the imports that follow, by a stand-in exporting `keys`; gives the id the JS side files
/// the factory's object under.
fn test_mock_module(
    state: &Rc<HostState>,
    MockModule(specifier, from, keys): MockModule,
) -> Result<u32, OpError> {
    let canonical = resolve_for_mock(&state.cwd(), &from, &specifier);
    Ok(state
        .get_or_default::<ModuleMocks>()
        .register(&canonical, keys))
}
