// The issue-22 post pipeline and a local HTTP receiver for it (test/post-pipeline*.test.ts).
// The receiver publishes a post once per Idempotency-Key, as a receiver that honours the header
// does: a repeated key gets the first answer again and publishes nothing new.
import http from "node:http";
import type { AddressInfo } from "node:net";

/** The post pipeline's YAML (docs/guide/16-external-workers.md) (NOTIFY: an external worker on queue "publisher"). */
export const POST_PIPELINE = `id: post-pipeline
title: Draft, review and publish a post
initial_stage: DRAFT
stages: [DRAFT, REVIEW, PUBLISH, NOTIFY, DONE, FAILED]
transitions: { DRAFT: [REVIEW], REVIEW: [DRAFT, PUBLISH], PUBLISH: [NOTIFY, FAILED], NOTIFY: [DONE], DONE: [], FAILED: [] }
steps:
  DRAFT:
    llm: { prompt: "Write a short post about {{input.topic}}. {{review.feedback}}" }
    next: REVIEW
  REVIEW:
    review: { prompt: "Publish this post?", show: "{{steps.DRAFT.output}}", decisions: [approve, reject, edit], approvers: 2 }
    on: { approve: PUBLISH, edit: PUBLISH, reject: DRAFT }
    timeout: { after_s: 86400, to: DRAFT }
  PUBLISH:
    http: { url: "{{input.publish_url}}", method: POST, body: { text: "{{steps.DRAFT.output}}" } }
    retry: { max: 3, backoff_s: 1 }
    timeout: { after_s: 30 }
    next: NOTIFY
    on_error: FAILED
  NOTIFY:
    external: { queue: publisher }
    next: DONE
`;

export interface Delivery {
  key: string | undefined;
  body: unknown;
}

export class Receiver {
  /** every request, in order */
  requests: Delivery[] = [];
  /** published posts, one per Idempotency-Key */
  posts = new Map<string, unknown>();
  /** called with each request before it is answered; return false to leave it unanswered */
  onRequest: (d: Delivery) => boolean = () => true;
  url = "";
  private server = http.createServer((req, res) => {
    let data = "";
    req.on("data", (c) => (data += c));
    req.on("end", () => {
      const d: Delivery = { key: req.headers["idempotency-key"] as string | undefined, body: data ? JSON.parse(data) : null };
      this.requests.push(d);
      if (!this.onRequest(d)) return;
      const key = d.key ?? `no-key-${this.requests.length}`;
      if (!this.posts.has(key)) this.posts.set(key, d.body);
      res.writeHead(200, { "content-type": "application/json" });
      res.end(JSON.stringify({ id: `post-${[...this.posts.keys()].indexOf(key) + 1}`, published: true }));
    });
  });

  async start(): Promise<this> {
    await new Promise<void>((r) => this.server.listen(0, "127.0.0.1", r));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/posts`;
    return this;
  }

  close(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((r) => this.server.close(() => r()));
  }
}
