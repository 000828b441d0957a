// A small module with dead code, for the reviewer to find.

export function formatDate(date: Date): string {
  return date.toISOString().slice(0, 10);
}

export function total(values: number[]): number {
  return values.reduce((sum, v) => sum + v, 0);
}

function unusedHelper(): number {
  return 42;
}

export const report = (values: number[]) => `total: ${total(values)}`;
