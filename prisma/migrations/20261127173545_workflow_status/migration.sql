-- CreateTable
CREATE TABLE "WorkflowStatus" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "disabled" BOOLEAN NOT NULL DEFAULT false,
    "deletedAt" DATETIME,
    "updatedAt" DATETIME NOT NULL
);
