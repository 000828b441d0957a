// The built-ins' prototypes that no global names (iterators, generators, async functions), for
// the objects a reused host puts back between its users (runtime/src/js/engine/shared_objects.rs
// finds the rest from the global object).

export function unnamedPrototypes(): object[] {
  const instances: object[] = [
    [][Symbol.iterator](),
    new Map()[Symbol.iterator](),
    new Set()[Symbol.iterator](),
    ""[Symbol.iterator](),
    /./[Symbol.matchAll](""),
    function* () {},
    async function () {},
    async function* () {},
  ];
  return instances.map((instance) => Object.getPrototypeOf(instance) as object);
}
