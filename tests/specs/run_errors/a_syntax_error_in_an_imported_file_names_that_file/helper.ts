export function helper(): number {
  return 1 +;
}
