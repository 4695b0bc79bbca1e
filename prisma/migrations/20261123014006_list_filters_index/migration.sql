-- CreateIndex
CREATE INDEX "Transaction_organizationId_status_selectedPaymentMethod_isD_idx" ON "Transaction"("organizationId", "status", "selectedPaymentMethod", "isDeleted", "createdAt" DESC);
