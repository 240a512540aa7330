-- CreateTable
CREATE TABLE "Task" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "key" TEXT NOT NULL,
    "queue" TEXT NOT NULL,
    "runId" TEXT NOT NULL,
    "workflow" TEXT NOT NULL,
    "stage" TEXT NOT NULL,
    "effect" TEXT NOT NULL,
    "input" TEXT NOT NULL,
    "status" TEXT NOT NULL,
    "worker" TEXT,
    "attempt" INTEGER NOT NULL DEFAULT 0,
    "maxAttempts" INTEGER NOT NULL,
    "backoffMs" INTEGER NOT NULL DEFAULT 0,
    "leaseUntil" BIGINT,
    "output" TEXT,
    "error" TEXT,
    "createdAt" BIGINT NOT NULL,
    "updatedAt" BIGINT NOT NULL,
    "doneAt" BIGINT
);

-- CreateIndex
CREATE UNIQUE INDEX "Task_key_key" ON "Task"("key");

-- CreateIndex
CREATE INDEX "Task_queue_status_leaseUntil_idx" ON "Task"("queue", "status", "leaseUntil");

-- CreateIndex
CREATE INDEX "Task_runId_idx" ON "Task"("runId");
