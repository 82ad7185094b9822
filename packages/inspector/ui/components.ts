import type { ComponentChildren } from 'preact';
import { useEffect, useRef } from 'preact/hooks';
import uPlot from 'uplot';
import { config } from './api';
import { html } from './html';

export function ErrorBox({ error }: { error?: Error }) {
  return error ? html`<p class="error" role="alert">${error.message}</p>` : null;
}

export function Loading({ when }: { when: boolean }) {
  return when ? html`<p class="muted" aria-live="polite">Loading…</p>` : null;
}

export function Card({ label, value, hint }: { label: string; value: ComponentChildren; hint?: string }) {
  return html`<div class="card"><div class="card-label">${label}</div><div class="card-value">${value}</div>${
    hint ? html`<div class="muted small">${hint}</div>` : null
  }</div>`;
}

/** Shown next to every write control when the inspector runs read-only. */
export function ReadOnlyNote() {
  return config.allowWrites
    ? null
    : html`<p class="note" data-testid="read-only-note">Read-only: start with <code>agentmem inspect --allow-writes</code> to apply or undo.</p>`;
}

function cssVar(name: string): string {
  return getComputedStyle(document.documentElement).getPropertyValue(name).trim() || '#888';
}

/** The chart's width: its box's, so that it never widens the page on a phone (uPlot sets a fixed pixel width). */
function chartWidth(el: HTMLElement): number {
  return Math.max(200, el.clientWidth || 640);
}

export interface ChartSeries {
  label: string;
  /** CSS variable holding the colour. */
  color: string;
  bars?: boolean;
  dash?: number[];
}

/**
 * A uPlot chart; x values are seconds when `time` is set. Colours come from
 * CSS variables, so the chart follows the light or dark scheme.
 */
export function Chart({
  data,
  series,
  label,
  time = true,
  height = 240,
  yMax,
  xRange,
  xLabel,
  yLabel,
}: {
  data: uPlot.AlignedData;
  series: ChartSeries[];
  label: string;
  time?: boolean;
  height?: number;
  yMax?: number;
  /** Fixed x range (histograms: bars at the edges stay whole). */
  xRange?: [number, number];
  xLabel?: string;
  yLabel?: string;
}) {
  const ref = useRef<HTMLDivElement>(null);
  const theme = document.documentElement.dataset.theme ?? '';
  useEffect(() => {
    const el = ref.current;
    if (!el) return;
    const axis = {
      stroke: cssVar('--fg-muted'),
      grid: { stroke: cssVar('--grid') },
      ticks: { stroke: cssVar('--grid') },
    };
    const plot = new uPlot(
      {
        width: chartWidth(el),
        height,
        scales: {
          x: xRange ? { time, range: xRange } : { time },
          y: yMax === undefined ? {} : { range: [0, yMax] },
        },
        axes: [
          { ...axis, ...(xLabel ? { label: xLabel } : {}) },
          { ...axis, ...(yLabel ? { label: yLabel } : {}) },
        ],
        series: [
          {},
          ...series.map((s) => ({
            label: s.label,
            stroke: cssVar(s.color),
            width: 2,
            ...(s.dash ? { dash: s.dash } : {}),
            ...(s.bars
              ? { paths: uPlot.paths.bars?.({ size: [0.8, 60] }), fill: cssVar(s.color), points: { show: false } }
              : {}),
          })),
        ],
        cursor: { focus: { prox: 16 } },
      },
      data,
      el,
    );
    const resize = () => plot.setSize({ width: chartWidth(el), height });
    window.addEventListener('resize', resize);
    return () => {
      window.removeEventListener('resize', resize);
      plot.destroy();
    };
  }, [data, theme]);
  return html`<figure class="chart" role="img" aria-label=${label}><div ref=${ref}></div></figure>`;
}

/** A modal confirmation (native <dialog>: focus trapped, Escape cancels). */
export function ConfirmDialog({
  open,
  title,
  children,
  confirmLabel,
  onConfirm,
  onCancel,
}: {
  open: boolean;
  title: string;
  children: ComponentChildren;
  confirmLabel: string;
  onConfirm: () => void;
  onCancel: () => void;
}) {
  const ref = useRef<HTMLDialogElement>(null);
  useEffect(() => {
    const dialog = ref.current;
    if (!dialog) return;
    if (open && !dialog.open) dialog.showModal();
    if (!open && dialog.open) dialog.close();
  }, [open]);
  return html`<dialog ref=${ref} onCancel=${(e: Event) => {
    e.preventDefault();
    onCancel();
  }} aria-labelledby="confirm-title">
    <h2 id="confirm-title">${title}</h2>
    <div>${children}</div>
    <div class="actions">
      <button type="button" onClick=${onCancel}>Cancel</button>
      <button type="button" class="danger" onClick=${onConfirm} data-testid="confirm">${confirmLabel}</button>
    </div>
  </dialog>`;
}
