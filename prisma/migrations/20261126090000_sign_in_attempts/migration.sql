-- CreateTable
CREATE TABLE "SignInAttempt" (
    "name" TEXT NOT NULL PRIMARY KEY,
    "count" INTEGER NOT NULL,
    "windowStart" BIGINT NOT NULL
);
