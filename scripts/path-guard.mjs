// Preloaded into the web server (npm start): a request whose path is not valid percent-encoding
// (/api/runs/%c0%ae) is answered 400 with a message before Next.js sees it. Next.js 16.4's
// router throws on such a path before any of the app's code (proxy or route handler) runs and
// answers 500. Every other request passes through, stamped with the address its connection came
// from (x-switchyard-client-address, replacing any a client sent): per-client limits read it
// (lib/api/who.ts).
import http from "node:http";

export function badPath(url) {
  const path = (url ?? "/").split("?")[0];
  try {
    decodeURIComponent(path);
    return false;
  } catch {
    return true;
  }
}

const emit = http.Server.prototype.emit;
http.Server.prototype.emit = function (event, req, res, ...rest) {
  if (event === "request" && badPath(req?.url)) {
    const api = (req.url ?? "").startsWith("/api/");
    const message = "the request path is not valid percent-encoding (each % must start a UTF-8 byte sequence such as %20)";
    res.writeHead(400, { "content-type": api ? "application/json; charset=utf-8" : "text/plain; charset=utf-8", "cache-control": "no-store" });
    res.end(api ? JSON.stringify({ error: "bad_path", message }) : `400 Bad Request: ${message}\n`);
    return true;
  }
  if (event === "request" && req?.headers) req.headers["x-switchyard-client-address"] = req.socket?.remoteAddress ?? "";
  return emit.call(this, event, req, res, ...rest);
};
