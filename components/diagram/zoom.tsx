"use client";
// Semantic zoom: how much a node and an edge label draw at the canvas's zoom. "detail" is every
// text at its own size (READABLE_ZOOM or more: 12 px text is 11 px or more on screen); "chip" is
// a compact node (status dot, name, badges) whose text is kept at a fixed size on screen through
// the --dz CSS variable (the zoom), edge labels shown only on hover or focus; "dot" is too small
// for any text (the name is the tooltip).
import { createContext, useContext } from "react";
import { READABLE_ZOOM } from "@/lib/graph/layout";

export type ZoomMode = "detail" | "chip" | "dot";

/** Below this zoom a 72 px high node is under 16 px on screen: no room for a line of text. */
const DOT_ZOOM = 0.22;

export const modeOf = (zoom: number): ZoomMode => (zoom >= READABLE_ZOOM ? "detail" : zoom >= DOT_ZOOM ? "chip" : "dot");

export const ZoomModeContext = createContext<ZoomMode>("detail");
export const useZoomMode = () => useContext(ZoomModeContext);

/** A CSS length of `px` screen pixels at any zoom (the canvas's zoom is --dz). */
export const screenPx = (px: number) => `calc(${px}px / var(--dz, 1))`;

/** An identifier with break opportunities between its words (after _ . - and before a capital), never inside one. */
export function Breakable({ text }: { text: string }) {
  const parts = text.split(/(?<=[_.\-])|(?<=[a-z0-9])(?=[A-Z])/);
  return (
    <>
      {parts.map((p, i) => (
        <span key={i}>
          {i > 0 && <wbr />}
          {p}
        </span>
      ))}
    </>
  );
}
