-- CreateTable
CREATE TABLE "ResponseCache" (
    "key" TEXT NOT NULL PRIMARY KEY,
    "mode" TEXT NOT NULL,
    "query" TEXT NOT NULL,
    "response" TEXT NOT NULL,
    "hits" INTEGER NOT NULL DEFAULT 0,
    "createdAt" DATETIME NOT NULL,
    "expiresAt" DATETIME NOT NULL
);

-- CreateTable
CREATE TABLE "ModeRequest" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "mode" TEXT NOT NULL,
    "level" TEXT NOT NULL,
    "routedBy" TEXT NOT NULL,
    "confidence" REAL NOT NULL,
    "latencyMs" INTEGER NOT NULL,
    "llmCalls" INTEGER NOT NULL,
    "cacheHit" BOOLEAN NOT NULL,
    "ok" BOOLEAN NOT NULL,
    "errorCategory" TEXT,
    "createdAt" DATETIME NOT NULL
);

-- CreateIndex
CREATE INDEX "ResponseCache_expiresAt_idx" ON "ResponseCache"("expiresAt");

-- CreateIndex
CREATE INDEX "ModeRequest_mode_createdAt_idx" ON "ModeRequest"("mode", "createdAt");
