-- CreateTable
CREATE TABLE "ResponseCache" (
    "key" TEXT NOT NULL,
    "mode" TEXT NOT NULL,
    "query" TEXT NOT NULL,
    "response" TEXT NOT NULL,
    "hits" INTEGER NOT NULL DEFAULT 0,
    "createdAt" TIMESTAMP(3) NOT NULL,
    "expiresAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "ResponseCache_pkey" PRIMARY KEY ("key")
);

-- CreateTable
CREATE TABLE "ModeRequest" (
    "id" TEXT NOT NULL,
    "mode" TEXT NOT NULL,
    "level" TEXT NOT NULL,
    "routedBy" TEXT NOT NULL,
    "confidence" DOUBLE PRECISION NOT NULL,
    "latencyMs" INTEGER NOT NULL,
    "llmCalls" INTEGER NOT NULL,
    "cacheHit" BOOLEAN NOT NULL,
    "ok" BOOLEAN NOT NULL,
    "errorCategory" TEXT,
    "createdAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "ModeRequest_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "ResponseCache_expiresAt_idx" ON "ResponseCache"("expiresAt");

-- CreateIndex
CREATE INDEX "ModeRequest_mode_createdAt_idx" ON "ModeRequest"("mode", "createdAt");
