"use client";
import { Handle, Position, useStore, type NodeProps, type ReactFlowState } from "@xyflow/react";
import { memo, useCallback } from "react";
import type { GraphState, GraphTransition } from "@/lib/graph/derive";
import { CHIP_FONT, labelLine } from "@/lib/graph/layout";
import type { OverlayTag, OverlayTone } from "@/lib/graph/overlay";
import { MINI, placesOf, rowLabels, type RowPlace } from "./tag-room";
import { Breakable, screenPx, useZoomMode, type ZoomMode } from "./zoom";

export type NodeStatus = "active" | "waiting" | "failed" | "visited" | "idle";

export interface StateNodeData extends Record<string, unknown> {
  state: GraphState;
  internal: GraphTransition[];
  aborts: GraphTransition[];
  errors: GraphTransition[];
  /** a fan of one event to many states, listed instead of drawn */
  fans?: GraphTransition[];
  status: NodeStatus;
  /** an abort out of this state was taken */
  abortTaken: boolean;
  /** the messages of the state's open alerts (lib/alerts), one a line; absent when none is open */
  alert?: string | null;
  /** a collapsed group: how many states it holds */
  hidden?: number;
  /** closes an open group (a collapsed one opens on a click on it: the diagram's onNodeClick); absent when it cannot */
  onToggle?: (id: string) => void;
  /** tags an overlay paints on the state (two runs' paths, agreement, runs landing here, a version diff) */
  tags?: OverlayTag[];
  /** outlined by an overlay (a comparison's first divergence) */
  outlined?: boolean;
  /**
   * more badges on the node, drawn at every zoom (a fleet's counts, what a run waits for …):
   * over its bottom edge, the first ones on the left
   */
  badges?: OverlayTag[];
  /** the node's laid-out size (zoom 1): how much text its chip has room for */
  box?: { w: number; h: number };
  /** drawn in the overview layout: a chip sized to its name in CHIP_FONT (lib/graph/layout.ts) */
  overview?: boolean;
  /** the node's side of the machine: a row of tags wider than the node grows towards the machine's middle, not past the canvas's edge */
  side?: "left" | "right";
  /** below a readable zoom, where the node's rows of tags go at a zoom (tag-room.ts's placeKey; "" when it has none) */
  placeTags?: (id: string, zoom: number) => string;
}

export const ALERT_LABEL = "⚠ alert";

/** Chip text: 12 px on screen in 14 px lines (a 12 px monospace line's own height), whatever the zoom. */
const CHIP_LINE = 14;
/** The group header's height at zoom 1 (the padding ELK keeps above a group's states). */
const GROUP_HEAD = 40;

/** How many lines of chip text a box `h` high holds at zoom `z` (0: none, at most 2). */
export const chipLines = (h: number, z: number) => Math.max(0, Math.min(2, Math.floor((h * z - 2) / CHIP_LINE)));
/** A 12 px monospace character's width (px). */
const CHIP_CHAR = 7.3;
/** The longest piece of an identifier between its break opportunities (see Breakable): wider than the chip, the name is cut with an ellipsis on one line instead. */
const longestWord = (name: string) => Math.max(...name.split(/(?<=[_.\-])|(?<=[a-z0-9])(?=[A-Z])/).map((p) => p.length));
/** The room inside the box on screen at zoom `z` (its padding and border, 20 px at zoom 1, left out), in whole 5 px steps (so nodes re-render only when it matters). */
const screenWidth = (w: number, z: number) => Math.floor(((w - 20) * z) / 5) * 5;

const tagTone: Record<OverlayTone, string> = {
  a: "bg-blue-600 text-white",
  b: "bg-amber-700 text-white",
  both: "bg-violet-600 text-white",
  good: "bg-emerald-700 text-white",
  bad: "bg-red-600 text-white",
  warn: "bg-amber-500 text-slate-950",
  info: "bg-slate-700 text-white dark:bg-slate-300 dark:text-slate-900",
};

/**
 * The overlay's tags over the node's top edge (their titles are the tooltips): paths and notes on
 * the left, a "bad" verdict (a divergence) on the right, clear of the edges arriving at the middle.
 */
function OverlayTags({ tags, mode, testId = "node-tags", edge = "top", alert, side = "left" }: { tags: OverlayTag[]; mode: ZoomMode; testId?: string; edge?: "top" | "bottom"; alert?: string | null; side?: "left" | "right" }) {
  // below a readable zoom a tag keeps its size on screen (12 px text)
  const scaled = mode !== "detail" ? { fontSize: screenPx(12), lineHeight: screenPx(16), paddingInline: screenPx(6) } : undefined;
  const tag = (t: OverlayTag, i: number) => (
    <span key={i} title={t.title ?? t.label} data-tone={t.tone} data-tag={t.tone} style={scaled} className={`shrink-0 whitespace-nowrap rounded-full px-1.5 py-px text-[12px] font-semibold leading-4 shadow-sm ring-2 ring-white dark:ring-slate-900 ${tagTone[t.tone]}`}>
      {t.label}
    </span>
  );
  const right = tags.filter((t) => t.tone === "bad");
  const left = tags.filter((t) => t.tone !== "bad");
  // over the edge at a readable zoom (the node keeps room for it); below, a chip has no room: the tags sit on it from outside
  const y = edge === "top" ? (mode === "detail" ? "top-0 -translate-y-1/2" : "top-0 -translate-y-full") : mode === "detail" ? "bottom-0 translate-y-1/2" : "bottom-0 translate-y-full";
  if (mode === "dot")
    return (
      <>
        <span data-testid={testId} className="hidden">{tags.map((t) => t.label).join(" ")}</span>
        {alert && <AlertBadge message={alert} mode={mode} />}
      </>
    );
  // the node's alert badge joins the row (after the notes, or before a verdict on the right): a tag and the badge never overlap
  const badge = alert ? <AlertBadge key="alert" message={alert} mode={mode} inline /> : null;
  return (
    <span data-testid={testId}>
      {/* the notes are drawn whole: a row wider than the node reaches past its edge on the machine's inner side */}
      {(left.length > 0 || (badge && right.length === 0)) && <span className={`absolute ${y} z-10 flex gap-1 ${right.length ? "left-2 max-w-[calc(50%-0.75rem)] overflow-hidden" : side === "right" ? "right-2 w-max justify-end" : "left-2 w-max"}`}>{left.map(tag)}{right.length === 0 && badge}</span>}
      {right.length > 0 && <span className={`absolute ${y} right-2 z-10 flex max-w-[calc(50%-0.75rem)] justify-end gap-1 overflow-hidden`}>{badge}{right.map(tag)}</span>}
    </span>
  );
}

/**
 * A row of tags below a readable zoom (12 px on screen), where tag-room.ts placed it: over the
 * edge it prefers or the other one, whole or shortened, or not drawn (null) where it would cover
 * another state or another row; the tags' text is then in the node's tooltip. All the labels are
 * in the page (hidden) for what reads them.
 */
function ChipTags({ tags, place, testId, side = "left", alert }: { tags: OverlayTag[]; place: RowPlace | null; testId: string; side?: "left" | "right"; alert?: string | null }) {
  const scaled = { fontSize: screenPx(12), lineHeight: screenPx(16), paddingInline: screenPx(6) };
  const shown = place && place.edge !== "inside" ? tags.flatMap((t) => { const label = rowLabels([t], place.form)[0]; return label ? [{ ...t, label, title: t.title ?? t.label }] : []; }) : [];
  // (from the node's padding edge, inside its border: where tag-room.ts's rowBox puts the row)
  const y = place?.edge === "bottom" ? "bottom-0 translate-y-full" : "top-0 -translate-y-full";
  return (
    <span data-testid={testId}>
      {/* (drawn whole, a tag carries its tone; else its whole label is here, hidden, and the shortened one drawn carries only data-tag) */}
      {place?.form !== "full" && (
        <span className="hidden">
          {tags.map((t, i) => (
            <span key={i} data-tone={t.tone}>{t.label}</span>
          ))}
        </span>
      )}
      {place && place.edge !== "inside" ? (
        <span className={`absolute ${y} z-10 flex w-max gap-1 ${side === "right" ? "right-2 justify-end" : "left-2"}`}>
          {shown.map((t, i) => (
            <span key={i} title={t.title} data-tag={t.tone} data-tone={place.form === "full" ? t.tone : undefined} style={scaled} className={`shrink-0 whitespace-nowrap rounded-full py-px font-semibold shadow-sm ring-2 ring-white dark:ring-slate-900 ${tagTone[t.tone]}`}>
              {t.label}
            </span>
          ))}
          {alert && <AlertBadge message={alert} mode="chip" inline />}
        </span>
      ) : (
        // no room for the row beside the chip: an open alert is still marked, by a dot on the node's corner
        alert && <AlertBadge message={alert} mode="dot" />
      )}
    </span>
  );
}

/** Below a readable zoom, where tag-room.ts put the node's rows of tags (null: no room for one; undefined: not placed, drawn as before). */
function useTagPlaces(id: string, place: StateNodeData["placeTags"], mode: ZoomMode) {
  const key = useStore(useCallback((st: ReactFlowState) => (place && mode === "chip" ? place(id, st.transform[2]) : ""), [id, place, mode]));
  return key ? placesOf(key) : undefined;
}

/** The text of a node's tags for its tooltip where they may not all be drawn. */
const tagsTitle = (tags?: OverlayTag[], badges?: OverlayTag[]) => [...(tags ?? []), ...(badges ?? [])].map((t) => t.title ?? t.label).join("\n");

const frame: Record<NodeStatus, string> = {
  active: "border-blue-600 bg-blue-50 ring-4 ring-blue-500/25 shadow-lg shadow-blue-500/20 dark:border-blue-400 dark:bg-blue-950",
  waiting: "border-emerald-600 bg-emerald-50 ring-4 ring-emerald-500/25 shadow-lg shadow-emerald-500/20 dark:border-emerald-400 dark:bg-emerald-950",
  failed: "border-red-500 bg-red-50 dark:border-red-400 dark:bg-red-950",
  visited: "border-slate-400 bg-white dark:border-slate-500 dark:bg-slate-900",
  idle: "border-slate-200 bg-white dark:border-slate-700 dark:bg-slate-900",
};

const hidden = "!h-1 !w-1 !min-h-0 !min-w-0 !border-0 !bg-transparent";

/** The status dot: pulsing while the state is live (still when motion is reduced), red when it failed. */
function StatusDot({ status, size }: { status: NodeStatus; size?: string }) {
  const live = status === "active" || status === "waiting";
  const style = size ? { width: size, height: size } : undefined;
  if (live)
    return (
      <span className="relative flex h-2.5 w-2.5 shrink-0" style={style}>
        <span className={`absolute inline-flex h-full w-full rounded-full motion-safe:animate-ping motion-reduce:hidden opacity-75 ${status === "waiting" ? "bg-emerald-400" : "bg-blue-400"}`} />
        <span className={`relative inline-flex h-full w-full rounded-full ${status === "waiting" ? "bg-emerald-600" : "bg-blue-600"}`} />
      </span>
    );
  if (status === "failed") return <span className="h-2.5 w-2.5 shrink-0 rounded-full bg-red-500" style={style} />;
  return null;
}

const nodeTitle = (d: StateNodeData) =>
  d.hidden !== undefined ? `${d.state.name}: ${d.hidden} states inside. Click to open.` : [d.state.name, d.state.summary, d.status === "waiting" ? "waiting" : null].filter(Boolean).join(" · ");

const chipText = { fontSize: screenPx(12), lineHeight: screenPx(CHIP_LINE) };

/**
 * A compact node: status dot and name, a collapsed group's count and a review state's tag. With
 * room for two lines, a group's count goes on the second, so its name has the whole width; a name
 * that does not fit one line breaks between its words (never inside one) over two, else is cut
 * with an ellipsis (the whole name is the node's tooltip).
 */
function Chip({ name, status, count, human, lines, wide }: { name: string; status: NodeStatus; count?: number; human: boolean; lines: number; wide: number }) {
  const collapsed = count !== undefined;
  // room for the name inside the node's padding, beside the dot (9 px and a 5 px gap) where it has one
  const room = wide - (status === "active" || status === "waiting" || status === "failed" ? 14 : 0);
  const words = longestWord(name) * CHIP_CHAR;
  const whole = name.length * CHIP_CHAR <= room;
  const extra = (
    <>
      {collapsed && <span className="shrink-0 whitespace-nowrap font-medium text-slate-600 dark:text-slate-400" style={chipText}>▸ {count}</span>}
      {human && wide >= 100 && <span title="human review" className="shrink-0 rounded bg-emerald-100 font-sans font-medium text-emerald-800 dark:bg-emerald-900 dark:text-emerald-100" style={{ ...chipText, paddingInline: screenPx(4) }}>review</span>}
    </>
  );
  const hasExtra = collapsed || (human && wide >= 100);
  const dot = <StatusDot status={status} size={screenPx(9)} />;
  const oneLine = <span className="min-w-0 truncate font-mono font-semibold text-slate-900 dark:text-slate-100" style={chipText}>{name}</span>;
  // (a review state's name comes before its tag: the tag takes the second line only from a name that fits on the first)
  if (lines >= 2 && (collapsed || (hasExtra && whole)))
    return (
      <div className="flex min-w-0 flex-col justify-center overflow-hidden">
        <div className="flex min-w-0 items-center" style={{ gap: screenPx(5) }}>{dot}{oneLine}</div>
        <div className="flex min-w-0 items-center overflow-hidden" style={{ gap: screenPx(5), paddingLeft: status === "active" || status === "waiting" || status === "failed" ? screenPx(14) : undefined }}>{extra}</div>
      </div>
    );
  return (
    <div className="flex max-h-full min-h-0 min-w-0 items-center overflow-hidden" style={{ gap: screenPx(5) }}>
      {dot}
      {lines >= 2 && !whole && words <= room ? (
        <span className="line-clamp-2 min-w-0 font-mono font-semibold text-slate-900 [overflow-wrap:normal] [word-break:normal] dark:text-slate-100" style={chipText}>
          <Breakable text={name} />
        </span>
      ) : (
        oneLine
      )}
      {/* one line: a collapsed group's count beside its name, a review tag where the whole name leaves room for it */}
      {lines < 2 && (collapsed || (human && name.length * CHIP_CHAR + 55 <= room)) && extra}
    </div>
  );
}

/**
 * The overview's chip text: CHIP_FONT at zoom 1, so it scales with the diagram like the chip it
 * was laid out for, and never under 11 px on screen (then wider than its chip: cut to it).
 */
// (11.05: a rounding of the zoom does not take it under 11)
const overviewText = { fontSize: `max(${CHIP_FONT}px, ${screenPx(11.05)})`, lineHeight: 1.3 };

/** A chip of the overview layout: status dot, the whole name (the chip is as wide as it), a collapsed group's count. */
function OverviewChip({ name, status, count, minis = [] }: { name: string; status: NodeStatus; count?: number; minis?: OverlayTag[] }) {
  return (
    <div className="flex min-w-0 items-center overflow-hidden" style={{ ...overviewText, gap: "0.3em" }}>
      {status === "active" || status === "waiting" || status === "failed" ? <StatusDot status={status} size="0.45em" /> : <span className="shrink-0" style={{ width: "0.45em" }} />}
      <span className="min-w-0 truncate font-mono font-semibold text-slate-900 dark:text-slate-100">{name}</span>
      {count !== undefined && <span className="shrink-0 whitespace-nowrap font-medium text-slate-600 dark:text-slate-400">▸ {count}</span>}
      {/* the overlay's counts where there is no room for its tags beside the chip (11 px on screen): the name gives way to them */}
      {minis.map((t, i) => (
        <span key={i} title={t.title ?? t.label} data-tag={t.tone} data-mini="" style={{ fontSize: screenPx(MINI.font + 0.05), lineHeight: screenPx(MINI.line), paddingInline: screenPx(MINI.pad) }} className={`shrink-0 whitespace-nowrap rounded-full font-sans font-semibold ${tagTone[t.tone]}`}>
          {t.mini}
        </span>
      ))}
    </div>
  );
}

// Every text in a node is at least 12 px at zoom 1 (MIN_FONT in lib/graph/layout.ts) and drawn
// only at a zoom where it is 11 px or more on screen; below that zoom the node is a chip whose
// name and badges keep their size on screen (zoom.tsx), and at the smallest zoom a coloured box.
function StateNodeView({ data }: NodeProps) {
  const d = data as StateNodeData;
  const { state, internal, aborts, errors = [], fans = [], status, abortTaken, alert, hidden: count, tags, outlined, badges, box, side, overview, placeTags } = d;
  const mode = useZoomMode();
  const places = useTagPlaces(state.id, placeTags, mode);
  // a chip's text never spills out of its box: as many lines as the box holds on screen, the rest in the tooltip
  const lines = useStore(useCallback((st: ReactFlowState) => (box ? chipLines(box.h, st.transform[2]) : 2), [box]));
  const wide = useStore(useCallback((st: ReactFlowState) => (box ? screenWidth(box.w, st.transform[2]) : 200), [box]));
  const collapsed = count !== undefined;
  const detail = mode === "detail";
  return (
    <div
      data-state={state.id}
      data-status={status}
      data-collapsed={collapsed ? count : undefined}
      data-alert={alert ? "open" : undefined}
      data-mode={mode}
      title={detail && !collapsed ? undefined : [nodeTitle(d), detail ? "" : tagsTitle(tags, badges)].filter(Boolean).join("\n")}
      data-outlined={outlined ? "" : undefined}
      style={overview ? { paddingInline: `${CHIP_FONT * 0.45}px`, paddingBlock: 0 } : undefined}
      className={`relative flex h-full w-full flex-col rounded-xl border-2 transition-colors ${detail ? `px-3 ${tags?.length ? "pb-2 pt-3" : "py-2"}` : "justify-center px-2 py-1"} ${frame[status]} ${collapsed ? "cursor-pointer shadow-[4px_4px_0_-1px_rgb(148_163_184/0.55)] hover:bg-slate-50 dark:shadow-[4px_4px_0_-1px_rgb(71_85_105/0.8)] dark:hover:bg-slate-800" : ""} ${alert || outlined ? "outline outline-2 outline-offset-2 outline-red-400" : ""} ${outlined ? "!outline-4 !outline-red-500" : ""}`}
    >
      {places ? (
        <>
          {(tags?.length || alert) && <ChipTags tags={tags ?? []} place={places.top} testId="node-tags" side={side} alert={alert} />}
          {badges && badges.length > 0 && <ChipTags tags={badges} place={places.bottom} testId="node-badges" side={side} />}
        </>
      ) : (
        <>
          {alert && !tags?.length && <AlertBadge message={alert} mode={mode} />}
          {tags && tags.length > 0 && <OverlayTags tags={tags} mode={mode} alert={alert} side={side} />}
          {badges && badges.length > 0 && <OverlayTags tags={badges} mode={mode} testId="node-badges" edge="bottom" side={side} />}
        </>
      )}
      <Handle type="target" position={Position.Top} className={hidden} isConnectable={false} />
      {overview ? (
        mode !== "dot" && <OverviewChip name={state.name} status={status} count={count} minis={[...(places?.top?.edge === "inside" ? (tags ?? []) : []), ...(places?.bottom?.edge === "inside" ? (badges ?? []) : [])].filter((t) => t.mini)} />
      ) : detail ? (
        <>
          <div className="flex min-w-0 items-center gap-2">
            <StatusDot status={status} />
            <span className="truncate font-mono text-[14px] font-semibold leading-5 text-slate-900 dark:text-slate-100">{state.name}</span>
          </div>
          <div className="flex min-w-0 items-center text-[12px] leading-4 text-slate-600 dark:text-slate-400">
            {collapsed ? <span className="truncate font-medium text-slate-600 dark:text-slate-300">▸ {count} states inside · open</span> : state.summary && <span className="truncate">{state.summary}</span>}
          </div>
          <div className="mt-auto flex min-w-0 gap-1 overflow-hidden">
            {state.human && <span className="shrink-0 whitespace-nowrap rounded bg-emerald-100 px-1.5 text-[12px] font-medium leading-4 text-emerald-800 dark:bg-emerald-900 dark:text-emerald-100">human review</span>}
            {state.timeout && <span className="shrink-0 whitespace-nowrap rounded bg-amber-100 px-1.5 text-[12px] font-medium leading-4 text-amber-800 dark:bg-amber-900 dark:text-amber-100">max {state.timeout}</span>}
            {state.invokes.map((i) => (
              <span key={i} className="min-w-0 truncate rounded bg-slate-100 px-1.5 font-mono text-[12px] leading-4 text-slate-600 dark:bg-slate-800 dark:text-slate-300">{i}()</span>
            ))}
          </div>
          {(internal.length > 0 || aborts.length > 0 || errors.length > 0 || fans.length > 0) && (
            <ul className="mt-1 border-t border-dashed border-slate-300 pt-1 text-[12px] leading-4 text-slate-600 dark:border-slate-600 dark:text-slate-400">
              {internal.map((t) => (
                <li key={t.id} className="truncate" title={labelLine(t)}>↻ {labelLine(t)}</li>
              ))}
              {fans.length > 0 && (
                <li className="truncate" title={fans.map(labelLine).join("; ")}>
                  ↩ {fans[0].event} → {fans.length} states
                </li>
              )}
              {errors.length > 0 && (
                <li className="truncate text-red-700 dark:text-red-400" title={errors.map((t) => t.description ?? "on error").join("; ")}>
                  ✕ on error → {[...new Set(errors.map((t) => t.target))].join(", ")}
                </li>
              )}
              {aborts.length > 0 && (
                <li className={`truncate ${abortTaken ? "font-semibold text-amber-700 dark:text-amber-300" : ""}`} title="ABORT: the seed's global abort">
                  ⤺ ABORT → {[...new Set(aborts.map((a) => a.target))].join(", ")}
                </li>
              )}
            </ul>
          )}
        </>
      ) : (
        mode === "chip" && lines > 0 && <Chip name={state.name} status={status} count={count} human={!!state.human} lines={lines} wide={wide} />
      )}
      <Handle type="source" position={Position.Bottom} className={hidden} isConnectable={false} />
    </div>
  );
}

/** A red "⚠ alert" tag on the node's top right corner (above a chip, whose name fills it), or in its row of tags; the alert messages are its tooltip. */
function AlertBadge({ message, mode, inline = false }: { message: string; mode: ZoomMode; inline?: boolean }) {
  if (mode === "dot") return <span title={message} data-testid="node-alert" className="absolute -right-1 -top-1 z-10 h-2 w-2 rounded-full bg-red-600" />;
  const scaled = mode === "chip" ? { fontSize: screenPx(12), lineHeight: screenPx(16), paddingInline: screenPx(6) } : undefined;
  return (
    <span title={message} data-testid="node-alert" style={scaled} className={`${inline ? "shrink-0" : `absolute right-0 top-0 z-10 translate-x-2 ${mode === "chip" ? "-translate-y-full" : "-translate-y-1/2"}`} cursor-help whitespace-nowrap rounded-full bg-red-600 px-1.5 py-px text-[12px] font-semibold leading-4 text-white shadow-sm ring-2 ring-white dark:ring-slate-900`}>
      {ALERT_LABEL}
    </span>
  );
}

function GroupNodeView({ data }: NodeProps) {
  const { state, status, alert, onToggle, tags, badges, overview, placeTags } = data as StateNodeData;
  const mode = useZoomMode();
  const places = useTagPlaces(state.id, placeTags, mode);
  // (the overview's header is set like its chips: CHIP_FONT, at least 11 px on screen)
  const detail = mode === "detail" && !overview;
  const scaled = detail ? undefined : { fontSize: screenPx(12), lineHeight: screenPx(16) };
  // below a readable zoom the header keeps its size on screen: drawn only where the group's top band holds it
  const head = useStore(useCallback((st: ReactFlowState) => overview || GROUP_HEAD * st.transform[2] >= 22, [overview]));
  return (
    <div data-state={state.id} data-status={status} data-alert={alert ? "open" : undefined} data-mode={mode} title={detail ? undefined : [state.name, tagsTitle(tags, badges)].filter(Boolean).join("\n")} className={`relative h-full w-full rounded-2xl border-2 border-dashed ${status === "active" || status === "waiting" ? "border-blue-500 bg-blue-50/40 dark:bg-blue-950/40" : "border-slate-300 bg-slate-50/60 dark:border-slate-600 dark:bg-slate-800/40"}`}>
      {places ? (
        <>
          {(tags?.length || alert) && <ChipTags tags={tags ?? []} place={places.top} testId="node-tags" alert={alert} />}
          {badges && badges.length > 0 && <ChipTags tags={badges} place={places.bottom} testId="node-badges" />}
        </>
      ) : (
        <>
          {alert && !tags?.length && <AlertBadge message={alert} mode={mode} />}
          {tags && tags.length > 0 && <OverlayTags tags={tags} mode={mode} alert={alert} />}
          {badges && badges.length > 0 && <OverlayTags tags={badges} mode={mode} testId="node-badges" edge="bottom" />}
        </>
      )}
      <Handle type="target" position={Position.Top} className={hidden} isConnectable={false} />
      {(detail || (mode === "chip" && head)) && (
        <div className="flex min-w-0 items-center gap-2 overflow-hidden px-3 py-1.5" style={detail ? undefined : overview ? { paddingBlock: CHIP_FONT * 0.5, paddingInline: 12 } : { paddingBlock: screenPx(3), paddingInline: screenPx(8) }}>
          <span className="truncate font-mono text-[13px] font-semibold leading-5 text-slate-700 dark:text-slate-200" style={detail ? undefined : overview ? overviewText : { fontSize: screenPx(12), lineHeight: screenPx(16) }}>{state.name}</span>
          {detail && state.type === "parallel" && <span className="whitespace-nowrap text-[12px] leading-4 text-slate-600 dark:text-slate-400">parallel regions</span>}
          {onToggle && (
            <button type="button" data-testid="group-collapse" onClick={() => onToggle(state.id)} style={scaled} className="nodrag nopan ml-auto whitespace-nowrap rounded border border-slate-300 bg-white px-1.5 text-[12px] leading-4 text-slate-600 hover:bg-slate-100 dark:border-slate-600 dark:bg-slate-900 dark:text-slate-300 dark:hover:bg-slate-800">
              ▾ collapse
            </button>
          )}
        </div>
      )}
      <Handle type="source" position={Position.Bottom} className={hidden} isConnectable={false} />
    </div>
  );
}

export const StateNode = memo(StateNodeView);
export const GroupNode = memo(GroupNodeView);
