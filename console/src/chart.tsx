import uPlot from 'uplot';
import { useEffect, useRef } from 'preact/hooks';

/**
 * A time-series chart (uPlot): x in seconds since the epoch, one or more series. Money
 * series are drawn from their decimal text (a pixel position needs a number); figures
 * are shown as text beside the chart.
 */
export function TimeChart({ title, x, series, height = 180, windowSeconds, xRange }: { title: string; x: readonly number[]; series: readonly { label: string; values: readonly (number | null)[]; color: string }[]; height?: number; /** Show the last this many seconds (a live chart). */ windowSeconds?: number; /** The x range shown (seconds), else the data's. */ xRange?: readonly [number, number] }) {
  const box = useRef<HTMLDivElement>(null);
  const plot = useRef<uPlot | undefined>(undefined);
  const labels = series.map((s) => s.label).join('|');
  useEffect(() => {
    const el = box.current;
    if (!el) return;
    const width = () => Math.max(240, el.clientWidth);
    const u = new uPlot(
      {
        width: width(),
        height,
        series: [{}, ...series.map((s) => ({ label: s.label, stroke: s.color, width: 2 }))],
        // A live window labels its ticks with the time of day (UTC), without dates.
        axes: [windowSeconds ? { space: 90, values: (_u: uPlot, splits: number[]) => splits.map((t) => new Date(t * 1000).toISOString().slice(11, 19)) } : {}, { size: 60 }],
        ...(windowSeconds ? { scales: { x: { time: true, range: (_u: uPlot, _min: number, max: number) => [max - windowSeconds, max] as uPlot.Range.MinMax } } } : {}),
        ...(xRange ? { scales: { x: { time: true, range: [xRange[0], xRange[1]] as uPlot.Range.MinMax } } } : {}),
        legend: { show: true },
      },
      [x as number[], ...series.map((s) => s.values as (number | null)[])],
      el,
    );
    plot.current = u;
    const resize = new ResizeObserver(() => u.setSize({ width: width(), height }));
    resize.observe(el);
    return () => {
      resize.disconnect();
      u.destroy();
      plot.current = undefined;
    };
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [labels, height, xRange?.[0], xRange?.[1]]);
  useEffect(() => {
    plot.current?.setData([x as number[], ...series.map((s) => s.values as (number | null)[])]);
  });
  return <figure class="chart" aria-label={title} data-points={x.length}><figcaption>{title}</figcaption><div ref={box} /></figure>;
}
