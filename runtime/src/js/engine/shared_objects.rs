//! The objects every user of a host shares (the global object, the built-ins' constructors and
//! prototypes, the test framework's exports), put back as they were between users: `awf test`
//! runs a worker's files one after another in one context, and a global one file sets, a
//! prototype it extends or a method it replaces must not be seen by the next.
//!
//! `capture` records each object's own properties (key, attributes, value or accessors), its
//! prototype and whether it is extensible. `restore` deletes what was added, defines again what
//! changed or went missing, and puts the prototype back; what cannot be put back (a frozen
//! object, a property made non-configurable) makes it give false, and the host is then not used
//! again. Both read QuickJS's property records directly: no descriptor objects are made, so a
//! file's check costs microseconds, where the same loop written in JS took milliseconds.

use std::collections::{HashMap, HashSet};
use std::ffi::c_int;

use rquickjs::{qjs, Ctx, Value};

const ATTRIBUTES: c_int =
    (qjs::JS_PROP_CONFIGURABLE | qjs::JS_PROP_WRITABLE | qjs::JS_PROP_ENUMERABLE) as c_int;
const ACCESSOR: c_int = qjs::JS_PROP_GETSET as c_int;

/// One own property as it was.
struct SavedProperty {
    key: qjs::JSAtom,
    flags: c_int,
    value: qjs::JSValue,
    getter: qjs::JSValue,
    setter: qjs::JSValue,
}

/// One object as it was.
struct SavedObject {
    object: qjs::JSValue,
    prototype: qjs::JSValue,
    extensible: bool,
    properties: Vec<SavedProperty>,
}

/// The shared objects' state at `capture`; holds references to them and to what they held.
pub struct SharedObjects {
    runtime: *mut qjs::JSRuntime,
    objects: Vec<SavedObject>,
}

impl SharedObjects {
    /// Records the state of the global object; of each object or function its own data
    /// properties hold, and of each of `roots`; of the plain objects (not functions) those hold
    /// in turn, and of a function's `prototype`; and of every prototype on their chains. Each
    /// object once.
    pub fn capture(ctx: &Ctx<'_>, roots: &[Value<'_>]) -> SharedObjects {
        let raw = ctx.as_raw().as_ptr();
        let mut capture = Capture {
            ctx: raw,
            seen: HashMap::new(),
            objects: Vec::new(),
        };
        // SAFETY: every value read here is alive while it is read (the saved objects hold what
        // they held); every value kept is duplicated, and freed in `drop`.
        unsafe {
            let prototype_key = qjs::JS_NewAtom(raw, c"prototype".as_ptr());
            let global = qjs::JS_GetGlobalObject(raw);
            let mut first_level: Vec<qjs::JSValue> = Vec::new();
            if let Some(index) = capture.save_with_prototypes(global) {
                first_level.extend(capture.data_values(index).filter(|v| qjs::JS_IsObject(*v)));
            }
            first_level.extend(roots.iter().map(Value::as_raw));
            for root in first_level {
                let Some(index) = capture.save_with_prototypes(root) else {
                    continue;
                };
                let is_function = qjs::JS_IsFunction(raw, root);
                let held: Vec<qjs::JSValue> = capture.objects[index]
                    .properties
                    .iter()
                    .filter(|p| p.flags & ACCESSOR == 0 && qjs::JS_IsObject(p.value))
                    .filter(|p| {
                        !qjs::JS_IsFunction(raw, p.value) || (is_function && p.key == prototype_key)
                    })
                    .map(|p| p.value)
                    .collect();
                for value in held {
                    capture.save_with_prototypes(value);
                }
            }
            qjs::JS_FreeValue(raw, global);
            qjs::JS_FreeAtom(raw, prototype_key);
        }
        SharedObjects {
            // SAFETY: the context's runtime, which outlives the context.
            runtime: unsafe { qjs::JS_GetRuntime(raw) },
            objects: capture.objects,
        }
    }

    /// Puts every object back as it was at `capture`. False when one could not be: the context
    /// must not be used again.
    pub fn restore(&self, ctx: &Ctx<'_>) -> bool {
        let raw = ctx.as_raw().as_ptr();
        let mut restored = true;
        for saved in &self.objects {
            // SAFETY: the saved values are alive (this struct holds a reference to each), and
            // belong to this context's runtime.
            restored &= unsafe { restore_object(raw, saved) };
        }
        restored
    }

    /// How many objects are kept.
    pub fn len(&self) -> usize {
        self.objects.len()
    }
}

impl Drop for SharedObjects {
    fn drop(&mut self) {
        // SAFETY: each value and atom was duplicated for this struct, in this runtime, which
        // outlives it (the host drops its state before the runtime).
        unsafe {
            for saved in self.objects.drain(..) {
                qjs::JS_FreeValueRT(self.runtime, saved.object);
                qjs::JS_FreeValueRT(self.runtime, saved.prototype);
                for property in saved.properties {
                    free_property(self.runtime, property);
                }
            }
        }
    }
}

/// The objects saved so far, each once.
struct Capture {
    ctx: *mut qjs::JSContext,
    /// Index in `objects`, by object.
    seen: HashMap<usize, usize>,
    objects: Vec<SavedObject>,
}

impl Capture {
    /// Saves `value` (if it is an object) and the objects on its prototype chain; gives its
    /// index, whether saved now or before.
    unsafe fn save_with_prototypes(&mut self, value: qjs::JSValue) -> Option<usize> {
        let first = self.save(value)?;
        let mut at = first;
        loop {
            let prototype = self.objects[at].prototype;
            if !qjs::JS_IsObject(prototype)
                || self
                    .seen
                    .contains_key(&(qjs::JS_VALUE_GET_PTR(prototype) as usize))
            {
                break;
            }
            match self.save(prototype) {
                Some(next) => at = next,
                None => break,
            }
        }
        Some(first)
    }

    /// Saves one object, once; gives its index. `None` for a value that is not an object, or
    /// whose keys cannot be read.
    unsafe fn save(&mut self, object: qjs::JSValue) -> Option<usize> {
        if !qjs::JS_IsObject(object) {
            return None;
        }
        let id = qjs::JS_VALUE_GET_PTR(object) as usize;
        if let Some(index) = self.seen.get(&id) {
            return Some(*index);
        }
        let ctx = self.ctx;
        let keys = OwnKeys::of(ctx, object)?;
        let properties = keys
            .atoms()
            .filter_map(|key| own_property(ctx, object, key))
            .collect();
        drop(keys);
        self.objects.push(SavedObject {
            object: qjs::JS_DupValue(ctx, object),
            prototype: qjs::JS_GetPrototype(ctx, object),
            extensible: qjs::JS_IsExtensible(ctx, object) == 1,
            properties,
        });
        self.seen.insert(id, self.objects.len() - 1);
        Some(self.objects.len() - 1)
    }

    /// The values of saved object `index`'s own data properties.
    fn data_values(&self, index: usize) -> impl Iterator<Item = qjs::JSValue> + '_ {
        self.objects[index]
            .properties
            .iter()
            .filter(|p| p.flags & ACCESSOR == 0)
            .map(|p| p.value)
    }
}

unsafe fn restore_object(ctx: *mut qjs::JSContext, saved: &SavedObject) -> bool {
    let object = saved.object;
    let Some(keys) = OwnKeys::of(ctx, object) else {
        return false;
    };
    let unchanged = keys.len() == saved.properties.len()
        && keys
            .atoms()
            .zip(&saved.properties)
            .all(|(key, property)| key == property.key && same_property(ctx, object, property));
    let mut restored = true;
    if !unchanged {
        let known: HashSet<qjs::JSAtom> = saved.properties.iter().map(|p| p.key).collect();
        for key in keys.atoms() {
            if !known.contains(&key) && qjs::JS_DeleteProperty(ctx, object, key, 0) != 1 {
                restored = false;
            }
        }
        for property in &saved.properties {
            if !same_property(ctx, object, property) && !define(ctx, object, property) {
                restored = false;
            }
        }
    }
    drop(keys);
    let prototype = qjs::JS_GetPrototype(ctx, object);
    if !qjs::JS_IsSameValue(ctx, prototype, saved.prototype)
        && qjs::JS_SetPrototype(ctx, object, saved.prototype) != 1
    {
        restored = false;
    }
    qjs::JS_FreeValue(ctx, prototype);
    if saved.extensible && qjs::JS_IsExtensible(ctx, object) != 1 {
        restored = false;
    }
    if !restored {
        drop_exception(ctx);
    }
    restored
}

/// An object's own string and symbol keys, as QuickJS lists them (freed on drop).
struct OwnKeys {
    ctx: *mut qjs::JSContext,
    table: *mut qjs::JSPropertyEnum,
    len: u32,
}

impl OwnKeys {
    /// `None` if reading them threw.
    unsafe fn of(ctx: *mut qjs::JSContext, object: qjs::JSValue) -> Option<OwnKeys> {
        let mut table: *mut qjs::JSPropertyEnum = std::ptr::null_mut();
        let mut len: u32 = 0;
        let flags = (qjs::JS_GPN_STRING_MASK | qjs::JS_GPN_SYMBOL_MASK) as c_int;
        if qjs::JS_GetOwnPropertyNames(ctx, &mut table, &mut len, object, flags) < 0 {
            drop_exception(ctx);
            return None;
        }
        Some(OwnKeys { ctx, table, len })
    }

    fn len(&self) -> usize {
        self.len as usize
    }

    /// The keys, borrowed from the list.
    fn atoms(&self) -> impl Iterator<Item = qjs::JSAtom> + '_ {
        // SAFETY: the table holds `len` entries until drop.
        (0..self.len as usize).map(|i| unsafe { (*self.table.add(i)).atom })
    }
}

impl Drop for OwnKeys {
    fn drop(&mut self) {
        // SAFETY: the table QuickJS made for this context, freed once.
        unsafe { qjs::JS_FreePropertyEnum(self.ctx, self.table, self.len) }
    }
}

/// The own property `key` of `object` as it is now, with its own reference to `key`; `None` if
/// there is none.
unsafe fn own_property(
    ctx: *mut qjs::JSContext,
    object: qjs::JSValue,
    key: qjs::JSAtom,
) -> Option<SavedProperty> {
    let mut descriptor = std::mem::zeroed::<qjs::JSPropertyDescriptor>();
    match qjs::JS_GetOwnProperty(ctx, &mut descriptor, object, key) {
        1 => Some(SavedProperty {
            key: qjs::JS_DupAtom(ctx, key),
            flags: descriptor.flags & (ATTRIBUTES | ACCESSOR),
            value: descriptor.value,
            getter: descriptor.getter,
            setter: descriptor.setter,
        }),
        0 => None,
        _ => {
            drop_exception(ctx);
            None
        }
    }
}

/// Whether `object`'s own property `saved.key` is as it was.
unsafe fn same_property(
    ctx: *mut qjs::JSContext,
    object: qjs::JSValue,
    saved: &SavedProperty,
) -> bool {
    let mut now = std::mem::zeroed::<qjs::JSPropertyDescriptor>();
    if qjs::JS_GetOwnProperty(ctx, &mut now, object, saved.key) != 1 {
        drop_exception(ctx);
        return false;
    }
    let flags = now.flags & (ATTRIBUTES | ACCESSOR);
    let same = flags == saved.flags
        && if saved.flags & ACCESSOR != 0 {
            qjs::JS_IsSameValue(ctx, now.getter, saved.getter)
                && qjs::JS_IsSameValue(ctx, now.setter, saved.setter)
        } else {
            qjs::JS_IsSameValue(ctx, now.value, saved.value)
        };
    qjs::JS_FreeValue(ctx, now.value);
    qjs::JS_FreeValue(ctx, now.getter);
    qjs::JS_FreeValue(ctx, now.setter);
    same
}

/// Defines `saved` on `object` again, as it was; false if that was refused.
unsafe fn define(ctx: *mut qjs::JSContext, object: qjs::JSValue, saved: &SavedProperty) -> bool {
    let attributes = (qjs::JS_PROP_HAS_CONFIGURABLE | qjs::JS_PROP_HAS_ENUMERABLE) as c_int
        | (saved.flags & (qjs::JS_PROP_CONFIGURABLE | qjs::JS_PROP_ENUMERABLE) as c_int);
    let flags = if saved.flags & ACCESSOR != 0 {
        attributes | (qjs::JS_PROP_HAS_GET | qjs::JS_PROP_HAS_SET) as c_int
    } else {
        attributes
            | (qjs::JS_PROP_HAS_VALUE | qjs::JS_PROP_HAS_WRITABLE) as c_int
            | (saved.flags & qjs::JS_PROP_WRITABLE as c_int)
    };
    qjs::JS_DefineProperty(
        ctx,
        object,
        saved.key,
        saved.value,
        saved.getter,
        saved.setter,
        flags,
    ) == 1
}

unsafe fn free_property(runtime: *mut qjs::JSRuntime, property: SavedProperty) {
    qjs::JS_FreeAtomRT(runtime, property.key);
    qjs::JS_FreeValueRT(runtime, property.value);
    qjs::JS_FreeValueRT(runtime, property.getter);
    qjs::JS_FreeValueRT(runtime, property.setter);
}

/// Clears the exception a refused step left pending (none pending is fine).
unsafe fn drop_exception(ctx: *mut qjs::JSContext) {
    let exception = qjs::JS_GetException(ctx);
    qjs::JS_FreeValue(ctx, exception);
}
