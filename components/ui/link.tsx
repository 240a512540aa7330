"use client";
// The app's links: next/link without viewport prefetching. next/link fetches the page behind every
// link that scrolls into view — on the runs list that is a server render per visible run, and again
// after each live refresh (measured: ~300 ms of server CPU per page view, half of all it served).
// Here a link prefetches when a person shows intent (pointer over it, keyboard focus, a touch), so
// navigation still starts warm while a page view costs only itself.
import NextLink from "next/link";
import { useRouter } from "next/navigation";
import type { ComponentProps } from "react";

export default function Link({ prefetch, onMouseEnter, onFocus, onTouchStart, ...props }: ComponentProps<typeof NextLink>) {
  const router = useRouter();
  const href = typeof props.href === "string" && props.href.startsWith("/") ? props.href : null;
  const intent = () => {
    if (href && prefetch !== false) router.prefetch(href);
  };
  return (
    <NextLink
      {...props}
      prefetch={false}
      onMouseEnter={(e) => {
        intent();
        onMouseEnter?.(e);
      }}
      onFocus={(e) => {
        intent();
        onFocus?.(e);
      }}
      onTouchStart={(e) => {
        intent();
        onTouchStart?.(e);
      }}
    />
  );
}
