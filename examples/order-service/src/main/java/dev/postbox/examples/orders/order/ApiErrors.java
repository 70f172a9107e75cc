package dev.postbox.examples.orders.order;

import org.springframework.http.HttpStatus;
import org.springframework.http.ResponseEntity;
import org.springframework.http.converter.HttpMessageNotReadableException;
import org.springframework.web.bind.MethodArgumentNotValidException;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.RestControllerAdvice;
import tools.jackson.databind.DatabindException;

import java.util.Comparator;
import java.util.List;
import java.util.Map;

/**
 * JSON error bodies: 400 {@code {"errors":[{"field":"quantity","message":"..."}]}} for a body that fails
 * validation or cannot be read, 404 {@code {"error":"...","orderNo":"..."}} for an unknown order.
 */
@RestControllerAdvice
public class ApiErrors {

    /** One rejected field. */
    public record FieldError(String field, String message) {
    }

    /** The 400 body. */
    public record BadRequest(List<FieldError> errors) {
    }

    @ExceptionHandler(MethodArgumentNotValidException.class)
    public ResponseEntity<BadRequest> invalid(MethodArgumentNotValidException e) {
        List<FieldError> errors = e.getBindingResult().getFieldErrors().stream()
                .map(f -> new FieldError(f.getField(), f.getDefaultMessage()))
                .sorted(Comparator.comparing(FieldError::field).thenComparing(FieldError::message))
                .toList();
        return ResponseEntity.badRequest().body(new BadRequest(errors));
    }

    @ExceptionHandler(HttpMessageNotReadableException.class)
    public ResponseEntity<BadRequest> unreadable(HttpMessageNotReadableException e) {
        String field = "body";
        String message = "is not a readable JSON order";
        if (e.getCause() instanceof DatabindException d && !d.getPath().isEmpty()) {
            field = d.getPath().stream().map(r -> r.getPropertyName() != null ? r.getPropertyName() : "[" + r.getIndex() + "]")
                    .reduce((a, b) -> a + "." + b).orElse(field);
            message = "has the wrong type or format";
        }
        return ResponseEntity.badRequest().body(new BadRequest(List.of(new FieldError(field, message))));
    }

    @ExceptionHandler(OrderNotFoundException.class)
    public ResponseEntity<Map<String, String>> notFound(OrderNotFoundException e) {
        return ResponseEntity.status(HttpStatus.NOT_FOUND).body(Map.of("error", "order not found", "orderNo", e.orderNo()));
    }
}
