// The Context Manager of swiss-army (workflows/swiss-army/guide.md): it logs requests, stores results, keeps solution patterns
// whose confidence rises with approvals and falls with rejections, and answers ranked
// searches (BM25) over all of it. The search index lives in the database (cm-text.ts), so memory
// does not grow with what is stored and every process sees every write at once. When it is
// unavailable (switched off for maintenance, or its storage failing) searches are skipped and
// writes wait in an outbox that is flushed when it comes back.
import { createHash, randomUUID } from "node:crypto";
import type { Db } from "../../../lib/db/client";
import { TITLE_CHARS, prepareCmText, searchCmText, type CmDialect } from "./cm-text";

/** A Prisma client inside an interactive transaction. */
type Tx = Parameters<Parameters<Db["$transaction"]>[0]>[0];
import type { Clock } from "../../../lib/engine/clock";
import { EffectError } from "../../../lib/engine/effect-error";
import { SEED_PATTERNS } from "./seed-patterns";
import { clip, coverage, keyTerms } from "../../../lib/knowledge/text";

/** A pattern or result as a search ranks and shows it (read from the database for its candidates). */
interface Doc {
  id: string;
  kind: "pattern" | "result";
  title: string;
  text: string;
  keywords: string;
  confidence: number;
  decision: string | null;
}

/** the candidates (best text score first) a search reads to rank them */
const CANDIDATES = 50;

/** one thing a context search found: a pattern, a past request or result, a document passage */
export interface SearchHit {
  id: string;
  kind: "pattern" | "request" | "result" | "document";
  title: string;
  snippet: string;
  score: number;
  confidence?: number;
  /** where a document passage comes from (path or URL) */
  source?: string;
}

export interface CmStatus {
  available: boolean;
  reason: string | null;
  maintenance: boolean;
  queued: number;
  lastError: string | null;
}

export interface StoreResultInput {
  runId: string;
  requestId: string;
  content: string;
  requestType: string;
  output: string;
  success: boolean;
  partial: boolean;
  execution: unknown;
  hits: SearchHit[];
  tokens: number;
  executionMs: number;
  /** pattern names a model extracted at CONTEXT_UPDATE; without them, one is derived from the request's key terms */
  patterns?: string[];
}

export interface StoredResult {
  patterns_discovered: string[];
  context_links: string[];
  context_relevance: number;
}

type OutboxKind = "request" | "result" | "decision";

/** The Context Manager cannot answer now (its breaker is open, or its store failed): transient. */
export class CmUnavailableError extends EffectError {
  constructor(reason: string) {
    super(`Context Manager unavailable: ${reason}`, { category: "NETWORK" });
    this.name = "CmUnavailableError";
  }
}

/** A stable UUID-shaped id derived from an idempotency key. */
export function idFromKey(key: string): string {
  const h = createHash("sha256").update(key).digest("hex");
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-a${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

const MAINTENANCE_KEY = "cm.maintenance";
const BREAKER_MS = 30_000;

export class ContextManager {
  private maintenance: string | null = null;
  private maintenanceReadAt = -Infinity;
  private brokenUntil = 0;
  private lastError: string | null = null;
  private queued = 0;
  private flushing: Promise<{ flushed: number; left: number }> | null = null;
  /** the search index created (or checked) in this database */
  private prepared: Promise<void> | null = null;

  constructor(
    private db: Db,
    private clock: Clock,
    private dialect: CmDialect,
  ) {}

  // ------------------------------------------------------------ availability

  private async refreshMaintenance(): Promise<void> {
    if (this.clock.now() - this.maintenanceReadAt < 2_000) return;
    this.maintenanceReadAt = this.clock.now();
    try {
      const row = await this.db.setting.findUnique({ where: { key: MAINTENANCE_KEY } });
      this.maintenance = row && row.value ? row.value : null;
    } catch (e) {
      this.trip(e);
    }
  }

  async status(): Promise<CmStatus> {
    await this.refreshMaintenance();
    try {
      this.queued = await this.db.cmOutbox.count();
    } catch {
      // keep the last count
    }
    const reason = this.unavailableReason();
    return { available: reason === null, reason, maintenance: this.maintenance !== null, queued: this.queued, lastError: this.lastError };
  }

  private unavailableReason(): string | null {
    if (this.maintenance) return `switched off: ${this.maintenance}`;
    if (this.clock.now() < this.brokenUntil) return `storage failing (${this.lastError ?? "error"}); retrying soon`;
    return null;
  }

  async available(): Promise<boolean> {
    await this.refreshMaintenance();
    return this.unavailableReason() === null;
  }

  /** Switch the Context Manager off (a reason) or back on (null). */
  async setMaintenance(reason: string | null): Promise<void> {
    const now = new Date(this.clock.now());
    await this.db.setting.upsert({
      where: { key: MAINTENANCE_KEY },
      create: { key: MAINTENANCE_KEY, value: reason ?? "", updatedAt: now },
      update: { value: reason ?? "", updatedAt: now },
    });
    this.maintenance = reason || null;
    this.maintenanceReadAt = this.clock.now();
    if (!reason) void this.flushOutbox().catch(() => {});
  }

  private trip(e: unknown) {
    this.lastError = e instanceof Error ? e.message : String(e);
    this.brokenUntil = this.clock.now() + BREAKER_MS;
  }

  private async guarded<T>(fn: () => Promise<T>): Promise<T> {
    const reason = this.unavailableReason();
    if (reason) throw new CmUnavailableError(reason);
    try {
      return await fn();
    } catch (e) {
      this.trip(e);
      throw new CmUnavailableError(this.lastError ?? "error");
    }
  }

  // ------------------------------------------------------------ setup

  /** Insert the shipped solution patterns that are not there yet. */
  async seed(): Promise<number> {
    await this.ready();
    const now = new Date(this.clock.now());
    let added = 0;
    for (const p of SEED_PATTERNS) {
      const existing = await this.db.cmPattern.findUnique({ where: { name: p.name } });
      if (existing) continue;
      try {
        await this.db.cmPattern.create({ data: { id: idFromKey(`seed:${p.name}`), ...p, confidence: 0.7, createdAt: now, updatedAt: now } });
        added++;
      } catch (e) {
        // another process (a second worker starting at the same time) seeded it first
        if ((e as { code?: string }).code !== "P2002") throw e;
      }
    }
    return added;
  }

  // ------------------------------------------------------------ index

  /** The search index in this database: created (or rebuilt) once per process, before the first write or search. */
  private ready(): Promise<void> {
    this.prepared ??= prepareCmText(this.db, this.dialect).then(
      () => undefined,
      (e) => {
        this.prepared = null;
        throw e;
      },
    );
    return this.prepared;
  }

  // ------------------------------------------------------------ operations

  /** REQUEST_RECEIVED → CM: log the new request (idempotent on its id). Queued when unavailable. */
  async logRequest(runId: string, record: { request_id: string; content: string; metadata: unknown }): Promise<"stored" | "queued"> {
    return this.writeOrQueue("request", `request:${record.request_id}`, { runId, ...record });
  }

  /** CONTEXT_SEARCH ← CM: ranked hits for a request. Throws CmUnavailableError when unavailable. */
  async search(content: string, requestType: string, limit = 5): Promise<{ queries: string[]; hits: SearchHit[] }> {
    return this.guarded(async () => {
      await this.ready();
      const terms = keyTerms(content, 12);
      // one query: the request's first key terms and its type (one pass over the index's matches)
      const words = [...new Set([...terms.slice(0, 8), requestType].filter((w) => w.trim().length > 0))];
      const queries = words.length ? [words.join(" ")] : [];
      const best = new Map<string, number>();
      for (const r of await searchCmText(this.db, this.dialect, words, Math.max(CANDIDATES, limit))) best.set(r.id, r.score);
      const top = Math.max(0, ...best.values());
      const candidates = [...best].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0])).slice(0, Math.max(CANDIDATES, limit));
      const texts = await this.texts(candidates.map(([id]) => id));
      const hits: SearchHit[] = [];
      for (const [id, score] of candidates) {
        const doc = texts.get(id);
        if (!doc) continue;
        const weight = doc.kind === "pattern" ? 0.6 + 0.4 * doc.confidence : doc.decision === "approved" ? 1 : doc.decision === "rejected" ? 0.4 : 0.7;
        const relevance = (0.5 * (top > 0 ? score / top : 0) + 0.5 * coverage(terms, `${doc.title} ${doc.text} ${doc.keywords}`)) * weight;
        if (relevance < 0.15) continue;
        hits.push({
          id,
          kind: doc.kind,
          title: doc.title,
          snippet: clip(doc.text, 400),
          score: Math.round(relevance * 100) / 100,
          ...(doc.kind === "pattern" ? { confidence: Math.round(doc.confidence * 100) / 100 } : {}),
        });
      }
      hits.sort((a, b) => b.score - a.score || a.id.localeCompare(b.id));
      return { queries, hits: hits.slice(0, limit) };
    });
  }

  /** The candidates as a search ranks and shows them, read from the database (one query per table). */
  private async texts(ids: string[]): Promise<Map<string, Doc>> {
    const of = (prefix: string) => ids.filter((id) => id.startsWith(prefix)).map((id) => id.slice(prefix.length));
    const [patternIds, resultIds] = [of("pattern:"), of("result:")];
    const [patterns, results] = await Promise.all([
      patternIds.length ? this.db.cmPattern.findMany({ where: { id: { in: patternIds } } }) : [],
      resultIds.length ? this.db.cmResult.findMany({ where: { id: { in: resultIds } }, select: { id: true, content: true, output: true, decision: true } }) : [],
    ]);
    const out = new Map<string, Doc>();
    for (const p of patterns) out.set(`pattern:${p.id}`, patternDoc(p));
    for (const r of results) out.set(`result:${r.id}`, resultDoc(r));
    return out;
  }

  /** CONTEXT_UPDATE → CM: store the result, extract patterns, bump the patterns used, link related contexts. */
  async storeResult(input: StoreResultInput): Promise<StoredResult & { storage: "stored" | "queued" }> {
    const derived = this.derive(input);
    const storage = await this.writeOrQueue("result", `result:${input.requestId}`, { ...input, ...derived });
    return { ...derived, storage };
  }

  /**
   * HUMAN_REVIEW → CM: log the decision; approvals raise and rejections lower the confidence of
   * the patterns used. `key` (the engine action's idempotency key): a decision logged again with
   * the same key (an action replayed after a crash) is applied once (table CmDecision).
   */
  async logDecision(requestId: string, decision: string, feedback: string, patterns: string[], key?: string): Promise<"stored" | "queued"> {
    return this.writeOrQueue("decision", key ? `decision:${key}` : `decision:${requestId}:${decision}`, { requestId, decision, feedback, patterns, ...(key ? { key } : {}) });
  }

  /** The idle-time pattern analysis: recompute confidences from the recorded decisions. */
  async analyzePatterns(): Promise<{ patterns: number; updated: number }> {
    return this.guarded(async () => {
      const patterns = await this.db.cmPattern.findMany();
      let updated = 0;
      for (const p of patterns) {
        const decided = p.approvals + p.rejections;
        if (decided === 0) continue;
        // Laplace-smoothed approval rate, pulled toward the prior for patterns with few decisions
        const confidence = Math.round(((p.approvals + 1) / (decided + 2)) * 1000) / 1000;
        if (Math.abs(confidence - p.confidence) > 0.001) {
          await this.db.cmPattern.update({ where: { id: p.id }, data: { confidence, updatedAt: new Date(this.clock.now()) } });
          updated++;
        }
      }
      return { patterns: patterns.length, updated };
    });
  }

  async patterns() {
    return this.db.cmPattern.findMany({ orderBy: [{ confidence: "desc" }, { name: "asc" }] });
  }

  /** Write what queued up while the Context Manager was unavailable (one flush at a time). */
  flushOutbox(): Promise<{ flushed: number; left: number }> {
    this.flushing ??= this.flush().finally(() => (this.flushing = null));
    return this.flushing;
  }

  /** Resolves when no flush is running (for shutdown). */
  async idle(): Promise<void> {
    await this.flushing?.catch(() => {});
  }

  private async flush(): Promise<{ flushed: number; left: number }> {
    if (!(await this.available())) return { flushed: 0, left: this.queued };
    await this.ready();
    let flushed = 0;
    const rows = await this.db.cmOutbox.findMany({ orderBy: { createdAt: "asc" }, take: 500 });
    for (const row of rows) {
      try {
        // the row is claimed (deleted) in the transaction that applies it: applied exactly once,
        // even when another process (or a recovery path here) flushes the same outbox meanwhile
        const applied = await this.db.$transaction(async (tx) => {
          const { count } = await tx.cmOutbox.deleteMany({ where: { id: row.id } });
          if (count === 0) return false;
          await this.apply(tx, row.kind as OutboxKind, JSON.parse(row.payload));
          return true;
        });
        if (applied) flushed++;
      } catch (e) {
        await this.db.cmOutbox.updateMany({ where: { id: row.id }, data: { attempts: { increment: 1 }, lastError: e instanceof Error ? e.message : String(e) } });
        this.trip(e);
        break;
      }
    }
    this.queued = await this.db.cmOutbox.count();
    return { flushed, left: this.queued };
  }

  // ------------------------------------------------------------ internals

  private derive(input: StoreResultInput): StoredResult {
    const terms = keyTerms(input.content, 6);
    const patterns_discovered = !input.success ? [] : input.patterns?.length ? input.patterns : terms.length >= 2 ? [`${input.requestType}: ${terms.slice(0, 3).join(" ")}`] : [];
    const context_links = input.hits.filter((h) => h.kind === "result").map((h) => h.id.replace(/^result:/, ""));
    const context_relevance = input.hits.length ? Math.round((input.hits.reduce((s, h) => s + h.score, 0) / input.hits.length) * 100) / 100 : 0;
    return { patterns_discovered, context_links, context_relevance };
  }

  private async writeOrQueue(kind: OutboxKind, key: string, payload: Record<string, unknown>): Promise<"stored" | "queued"> {
    await this.refreshMaintenance();
    if (this.unavailableReason() === null) {
      try {
        await this.ready();
        await this.db.$transaction((tx) => this.apply(tx, kind, payload));
        return "stored";
      } catch (e) {
        this.trip(e);
      }
    }
    await this.db.cmOutbox.upsert({
      where: { key },
      create: { id: randomUUID(), key, kind, payload: JSON.stringify(payload), createdAt: new Date(this.clock.now()) },
      update: {},
    });
    this.queued++;
    return "queued";
  }

  /** One Context Manager write, in the caller's transaction (the search index follows by trigger or expression index). */
  private async apply(tx: Tx, kind: OutboxKind, p: Record<string, unknown>): Promise<void> {
    const now = new Date(this.clock.now());
    if (kind === "request") {
      const id = String(p.request_id);
      await tx.cmRequest.upsert({
        where: { id },
        create: { id, runId: String(p.runId), content: String(p.content), metadata: JSON.stringify(p.metadata ?? {}), createdAt: now },
        update: {},
      });
      return;
    }
    if (kind === "result") {
      const input = p as unknown as StoreResultInput & StoredResult;
      const existing = await tx.cmResult.findUnique({ where: { id: input.requestId } });
      if (existing) return; // already stored: the write is idempotent on the request id
      const patternHits = input.hits.filter((h) => h.kind === "pattern").map((h) => h.id.replace(/^pattern:/, ""));
      await tx.cmResult.create({
          data: {
            id: input.requestId,
            requestId: input.requestId,
            runId: input.runId,
            content: input.content,
            output: input.output,
            success: input.success,
            patterns: JSON.stringify({ applied: patternHits, discovered: input.patterns_discovered }),
            metrics: JSON.stringify({ tokens_used: input.tokens, execution_time_ms: input.executionMs, context_relevance: input.context_relevance, partial: input.partial, execution: input.execution }),
            links: JSON.stringify(input.context_links),
            storageStatus: "success",
            createdAt: now,
          },
        });
      for (const id of patternHits) await tx.cmPattern.updateMany({ where: { id }, data: { uses: { increment: 1 }, updatedAt: now } });
      for (const name of input.patterns_discovered) {
        await tx.cmPattern.upsert({
          where: { name },
          create: { id: idFromKey(`pattern:${name}`), name, description: `Learned from: ${input.content.slice(0, 300)}`, keywords: keyTerms(input.content, 10).join(" "), requestType: input.requestType, confidence: 0.5, uses: 1, createdAt: now, updatedAt: now },
          update: { uses: { increment: 1 }, updatedAt: now },
        });
      }
      return;
    }
    // decision
    const requestId = String(p.requestId);
    const decision = String(p.decision);
    if (typeof p.key === "string") {
      // applied once per key: the marker is written in this transaction with the decision's effects
      if (await tx.cmDecision.findUnique({ where: { key: p.key }, select: { key: true } })) return;
      await tx.cmDecision.create({ data: { key: p.key, requestId, decision, createdAt: now } });
    }
    const patterns = (p.patterns as string[]) ?? [];
    await tx.cmResult.updateMany({ where: { id: requestId }, data: { decision, feedback: String(p.feedback ?? ""), decidedAt: now } });
    const ids = patterns.map((x) => x.replace(/^pattern:/, ""));
    for (const id of ids) {
      const pat = await tx.cmPattern.findUnique({ where: { id } });
      if (!pat) continue;
      const confidence =
        decision === "approved" ? Math.min(0.99, pat.confidence + (1 - pat.confidence) * 0.2) : decision === "rejected" ? Math.max(0.05, pat.confidence * 0.75) : pat.confidence;
      await tx.cmPattern.update({
        where: { id },
        data: {
          confidence,
          approvals: decision === "approved" ? { increment: 1 } : undefined,
          rejections: decision === "rejected" ? { increment: 1 } : undefined,
          updatedAt: now,
        },
      });
    }
  }
}

function patternDoc(p: { id: string; name: string; description: string; keywords: string; confidence: number }): Doc {
  return { id: `pattern:${p.id}`, kind: "pattern", title: p.name, text: p.description, keywords: p.keywords, confidence: p.confidence, decision: null };
}

/** the snippet and the coverage check see up to 4,000 characters of the output (the index the first INDEXED_OUTPUT) */
function resultDoc(r: { id: string; content: string; output: string; decision: string | null }, output = 4000): Doc {
  return {
    id: `result:${r.id}`,
    kind: "result",
    title: `Earlier request: ${r.content.slice(0, TITLE_CHARS)}`,
    text: `${r.content}\n${r.output.slice(0, output)}`,
    keywords: "",
    confidence: 0,
    decision: r.decision,
  };
}
