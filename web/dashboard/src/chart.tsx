import type { MerchantStats } from './api';

/** The daily chart: volume as bars, payment count as a line, drawn as SVG (no chart library, no CDN). */
export function DailyChart(props: { days: MerchantStats['chart'] }) {
  const { days } = props;
  const width = 640;
  const height = 200;
  const pad = { left: 48, right: 36, top: 12, bottom: 28 };
  const innerW = width - pad.left - pad.right;
  const innerH = height - pad.top - pad.bottom;
  // Display only: the chart's scale is a float of the decimal string, the figures shown are the strings.
  const volumes = days.map((d) => Number(d.volumeUsdc));
  const maxVolume = Math.max(1, ...volumes);
  const maxCount = Math.max(1, ...days.map((d) => d.paymentCount));
  const step = innerW / Math.max(1, days.length);
  const barW = Math.max(2, step * 0.6);
  const x = (i: number) => pad.left + i * step + (step - barW) / 2;
  const yVol = (v: number) => pad.top + innerH - (v / maxVolume) * innerH;
  const yCount = (c: number) => pad.top + innerH - (c / maxCount) * innerH;
  const line = days.map((d, i) => `${i === 0 ? 'M' : 'L'}${(x(i) + barW / 2).toFixed(1)},${yCount(d.paymentCount).toFixed(1)}`).join(' ');
  const total = days.reduce((s, d) => s + d.paymentCount, 0);
  return (
    <figure class="chart">
      <svg viewBox={`0 0 ${width} ${height}`} role="img" aria-labelledby="chart-title chart-desc" data-testid="daily-chart">
        <title id="chart-title">Daily volume and payment count</title>
        <desc id="chart-desc">{`${days.length} days, ${total} payments in all; peak volume ${maxVolume.toFixed(2)} USDC`}</desc>
        <line x1={pad.left} x2={width - pad.right} y1={pad.top + innerH} y2={pad.top + innerH} class="axis" />
        <text x={pad.left - 6} y={pad.top + 8} class="tick" text-anchor="end">{maxVolume.toFixed(0)}</text>
        <text x={pad.left - 6} y={pad.top + innerH} class="tick" text-anchor="end">0</text>
        <text x={width - pad.right + 6} y={pad.top + 8} class="tick count">{maxCount}</text>
        {days.map((d, i) => (
          <rect key={d.date} x={x(i)} y={yVol(volumes[i]!)} width={barW} height={pad.top + innerH - yVol(volumes[i]!)} class="bar" data-date={d.date} data-count={d.paymentCount}>
            <title>{`${d.date}: ${d.volumeUsdc} USDC, ${d.paymentCount} payments`}</title>
          </rect>
        ))}
        <path d={line} class="count-line" />
        {days.length > 0 && (
          <>
            <text x={pad.left} y={height - 8} class="tick">{days[0]!.date}</text>
            <text x={width - pad.right} y={height - 8} class="tick" text-anchor="end">{days[days.length - 1]!.date}</text>
          </>
        )}
      </svg>
      <figcaption>
        <span class="legend bar-legend">Volume (USDC)</span> <span class="legend line-legend">Payments</span>
      </figcaption>
    </figure>
  );
}
