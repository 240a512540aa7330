-- CreateTable
CREATE TABLE "ModelCall" (
    "id" TEXT NOT NULL,
    "key" TEXT,
    "runId" TEXT,
    "state" TEXT,
    "purpose" TEXT NOT NULL,
    "adapter" TEXT NOT NULL,
    "endpoint" TEXT,
    "model" TEXT,
    "promptTokens" INTEGER NOT NULL,
    "completionTokens" INTEGER NOT NULL,
    "estimated" BOOLEAN NOT NULL,
    "latencyMs" INTEGER NOT NULL,
    "attempts" INTEGER NOT NULL,
    "ok" BOOLEAN NOT NULL,
    "errorCategory" TEXT,
    "error" TEXT,
    "output" TEXT,
    "createdAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "ModelCall_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "KnowledgeDocument" (
    "id" TEXT NOT NULL,
    "title" TEXT NOT NULL,
    "source" TEXT NOT NULL,
    "type" TEXT NOT NULL,
    "bytes" INTEGER NOT NULL,
    "sha256" TEXT NOT NULL,
    "importedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "KnowledgeDocument_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "KnowledgeChunk" (
    "id" TEXT NOT NULL,
    "documentId" TEXT NOT NULL,
    "ord" INTEGER NOT NULL,
    "heading" TEXT NOT NULL,
    "text" TEXT NOT NULL,
    "embedding" TEXT,
    "embedModel" TEXT,

    CONSTRAINT "KnowledgeChunk_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "ModelCall_key_key" ON "ModelCall"("key");

-- CreateIndex
CREATE INDEX "ModelCall_runId_idx" ON "ModelCall"("runId");

-- CreateIndex
CREATE INDEX "ModelCall_createdAt_idx" ON "ModelCall"("createdAt");

-- CreateIndex
CREATE UNIQUE INDEX "KnowledgeDocument_sha256_key" ON "KnowledgeDocument"("sha256");

-- CreateIndex
CREATE INDEX "KnowledgeDocument_importedAt_idx" ON "KnowledgeDocument"("importedAt");

-- CreateIndex
CREATE INDEX "KnowledgeChunk_documentId_ord_idx" ON "KnowledgeChunk"("documentId", "ord");

-- AddForeignKey
ALTER TABLE "KnowledgeChunk" ADD CONSTRAINT "KnowledgeChunk_documentId_fkey" FOREIGN KEY ("documentId") REFERENCES "KnowledgeDocument"("id") ON DELETE CASCADE ON UPDATE CASCADE;
