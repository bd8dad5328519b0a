/** One printed figure of the bench: its value, the floor it is measured against (if any), and its target. */
export interface Figure {
  name: string;
  value: number;
  unit: string;
  /** What the value is compared with: a floor measured in the same run, or a fixed bound. */
  against: { name: string; value: number; unit: string };
  /** The bound on value / against.value (`ratio`), or on value itself (`absolute`, against.value is then the bound). */
  target: { kind: 'ratio' | 'absolute'; atLeast?: number; atMost?: number };
}

export function percentile(values: number[], p: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

export function ratioOf(f: Figure): number {
  return f.target.kind === 'ratio' ? f.value / f.against.value : f.value;
}

export function met(f: Figure): boolean {
  const r = ratioOf(f);
  return (f.target.atLeast === undefined || r >= f.target.atLeast) && (f.target.atMost === undefined || r <= f.target.atMost);
}

const fmt = (v: number, unit: string) => `${v >= 100 ? v.toFixed(0) : v.toFixed(1)} ${unit}`;

function targetText(f: Figure): string {
  const what = f.target.kind === 'ratio' ? '×' : ` ${f.unit}`;
  const parts = [f.target.atLeast !== undefined ? `≥ ${f.target.atLeast}${what}` : '', f.target.atMost !== undefined ? `≤ ${f.target.atMost}${what}` : ''];
  return parts.filter(Boolean).join(', ');
}

/** A Markdown table (README shows the latest one); returns the number of missed targets. */
export function printTable(figures: Figure[]): number {
  const rows = figures.map((f) => [
    f.name,
    fmt(f.value, f.unit),
    `${f.against.name}: ${fmt(f.against.value, f.against.unit)}`,
    f.target.kind === 'ratio' ? `${ratioOf(f).toFixed(2)}×` : '',
    targetText(f),
    met(f) ? 'ok' : 'MISSED',
  ]);
  console.log('\n| Figure | Payrail | Against | Ratio | Target | |\n|---|---|---|---|---|---|');
  for (const row of rows) console.log(`| ${row.join(' | ')} |`);
  return figures.filter((f) => !met(f)).length;
}
