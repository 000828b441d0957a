export interface Finding {
  file: string;
}

export function countFinding(findings: Finding[]): number {
  return findings.length;
}

export const formatReport = (count: number): string => `${count} findings`;
