function logged<T>(method: T): T {
  return method;
}
class Reviewer {
  @logged
  review(): string {
    return "ok";
  }
}
export default defineWorkflow({
  meta: { name: "decorated", description: "Uses a decorator." },
  run: () => new Reviewer().review(),
});
