import type { Metadata } from "next";
import { notFound } from "next/navigation";
import type { ComponentType } from "react";
import { requireViewer } from "@/app/session";
import { pageMetadataOf, pageOf } from "@/app/catalog";

export const dynamic = "force-dynamic";

type Props = { params: Promise<{ page: string }>; searchParams: Promise<Record<string, string | string[] | undefined>> };

/** the page's own metadata (its module's `metadata` export) */
export async function generateMetadata({ params }: Pick<Props, "params">): Promise<Metadata> {
  return (await pageMetadataOf((await params).page)) ?? {};
}

/** an app-level page a built-in workflow contributes (its entry's `pages`, by name): none by that name, not found */
export default async function WorkflowPage({ params, searchParams }: Props) {
  await requireViewer();
  const Page = (await pageOf((await params).page)) as ComponentType<{ searchParams: Props["searchParams"] }> | null;
  if (!Page) notFound();
  return <Page searchParams={searchParams} />;
}
