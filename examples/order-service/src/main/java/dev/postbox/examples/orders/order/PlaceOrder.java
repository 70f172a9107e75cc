package dev.postbox.examples.orders.order;

import jakarta.validation.constraints.DecimalMin;
import jakarta.validation.constraints.Digits;
import jakarta.validation.constraints.Max;
import jakarta.validation.constraints.Min;
import jakarta.validation.constraints.NotBlank;
import jakarta.validation.constraints.NotNull;
import jakarta.validation.constraints.Size;

import java.math.BigDecimal;

/** The body of {@code POST /orders}, e.g. {@code {"userId":"u1","sku":"SKU-1","quantity":1,"amount":"19.90"}}. */
public record PlaceOrder(
        @NotBlank @Size(max = 64) String userId,
        @NotBlank @Size(max = 64) String sku,
        @NotNull @Min(1) @Max(1000) Integer quantity,
        @NotNull @DecimalMin(value = "0", inclusive = false) @Digits(integer = 16, fraction = 2) BigDecimal amount) {
}
