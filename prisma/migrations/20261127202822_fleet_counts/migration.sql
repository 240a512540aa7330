-- CreateTable
CREATE TABLE "FleetCount" (
    "workflow" TEXT NOT NULL,
    "version" INTEGER NOT NULL,
    "hour" INTEGER NOT NULL,
    "kind" TEXT NOT NULL,
    "key" TEXT NOT NULL,
    "bucket" INTEGER NOT NULL,
    "n" INTEGER NOT NULL,

    PRIMARY KEY ("workflow", "version", "hour", "kind", "key", "bucket")
);
