import { notFound } from "next/navigation";
import type { ComponentType } from "react";
import { requireViewer } from "@/app/session";
import { pageOf } from "@/app/catalog";

export const dynamic = "force-dynamic";
export const metadata = { title: "Log" };

type Props = { searchParams: Promise<Record<string, string | string[] | undefined>> };

/** the log: a page a built-in workflow contributes (its entry's pages.log) */
export default async function LogPage(props: Props) {
  await requireViewer();
  const Page = (await pageOf("log")) as ComponentType<Props> | null;
  if (!Page) notFound();
  return <Page {...props} />;
}
