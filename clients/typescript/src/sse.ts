// Server-Sent Events read from a fetch body: `event:` and `data:` lines up to a blank line make one
// message; comments (`: ping`) and `retry:` are skipped; data is parsed as JSON (text when it is not).
export interface SseMessage {
  event: string;
  data: unknown;
}

export async function* readEvents(body: ReadableStream<Uint8Array>): AsyncGenerator<SseMessage> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let buffer = "";
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      buffer += decoder.decode(value, { stream: true });
      for (let end = boundary(buffer); end; end = boundary(buffer)) {
        const block = buffer.slice(0, end.at);
        buffer = buffer.slice(end.at + end.length);
        const message = parse(block);
        if (message) yield message;
      }
    }
  } finally {
    await reader.cancel().catch(() => {});
  }
}

function boundary(text: string): { at: number; length: number } | null {
  const m = /\r?\n\r?\n/.exec(text);
  return m ? { at: m.index, length: m[0].length } : null;
}

function parse(block: string): SseMessage | null {
  let event = "message";
  const data: string[] = [];
  for (const line of block.split(/\r?\n/)) {
    if (line === "" || line.startsWith(":")) continue;
    const colon = line.indexOf(":");
    const field = colon < 0 ? line : line.slice(0, colon);
    const value = colon < 0 ? "" : line.slice(colon + 1).replace(/^ /, "");
    if (field === "event") event = value;
    else if (field === "data") data.push(value);
  }
  if (data.length === 0) return null;
  const text = data.join("\n");
  try {
    return { event, data: JSON.parse(text) };
  } catch {
    return { event, data: text };
  }
}
