-- AlterTable
ALTER TABLE "ApiToken" ADD COLUMN "queues" TEXT;

-- AlterTable
ALTER TABLE "Task" ADD COLUMN "leaseHash" TEXT;
ALTER TABLE "Task" ADD COLUMN "settledBy" TEXT;

-- CreateTable
CREATE TABLE "RunPrincipal" (
    "runId" TEXT NOT NULL PRIMARY KEY,
    "principal" TEXT NOT NULL,
    "createdAt" BIGINT NOT NULL
);
