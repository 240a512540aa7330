// The TypeScript client's answer types are written from the server's response schemas
// (lib/api/openapi/client-types.ts → clients/typescript/src/api-types.ts): the file must be what
// the schemas give now, and the views the server answers with must fit those schemas (the
// schemas are checked against real answers by test/openapi.test.ts).
import fs from "node:fs";
import path from "node:path";
import { describe, expect, expectTypeOf, it } from "vitest";
import type { z } from "zod";
import type { Run, Review, Transition } from "@switchyard/client";
import { CLIENT_TYPES, clientTypesText } from "../lib/api/openapi/client-types";
import type * as R from "../lib/api/openapi/responses";
import type { ReviewView, RunView, TransitionView } from "../lib/engine/views";

/** a loose object's declared fields (its index signature left out) */
type Known<T> = { [K in keyof T as string extends K ? never : K]: T[K] };

const FILE = path.join(import.meta.dirname, "..", "clients", "typescript", "src", "api-types.ts");

describe("client answer types", () => {
  it("clients/typescript/src/api-types.ts is what the response schemas give (run `npm run client:types` after changing them)", () => {
    expect(fs.readFileSync(FILE, "utf8")).toBe(clientTypesText());
  });

  it("every type the file declares is a schema's, and the client exports them", () => {
    const declared = [...clientTypesText().matchAll(/^export (?:interface|type) (\w+)/gm)].map((m) => m[1]).sort();
    expect(declared).toEqual(expect.arrayContaining(Object.keys(CLIENT_TYPES).sort()));
    expectTypeOf<Run["status"]>().toEqualTypeOf<"running" | "waiting" | "completed" | "failed" | "aborted">();
    expectTypeOf<Review["decisions"]>().toEqualTypeOf<string[]>();
  });

  it("the server's views fit the schemas the client types are written from", () => {
    expectTypeOf<RunView & { stateIds: string[] }>().toExtend<Known<z.output<typeof R.Run>>>();
    expectTypeOf<TransitionView>().toExtend<Known<z.output<typeof R.Transition>>>();
    expectTypeOf<ReviewView>().toExtend<Known<z.output<typeof R.ReviewRecord>>>();
    // and what the client reads of them is there, with the same types
    expectTypeOf<Pick<RunView, "id" | "status" | "state" | "seq" | "since" | "createdAt">>().toExtend<Pick<Run, "id" | "status" | "state" | "seq" | "since" | "createdAt">>();
    expectTypeOf<TransitionView>().toExtend<Transition>();
  });
});
