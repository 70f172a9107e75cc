package dev.postbox.compensation;

import java.time.Instant;

/** One stored row of {@code biz_compensation_log}: the evidence that, when and how often a compensation ran. */
public record CompensationRecord(long id, String bizType, String bizKey, String actionType, CompensationStatus status,
                                 int attempts, String lastError, Instant createTime, Instant updateTime) {
}
