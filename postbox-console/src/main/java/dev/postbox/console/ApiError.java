package dev.postbox.console;

/**
 * An answer other than success, as the API sends it: {@code {"error": code, "field": ..., "message": ...}}.
 * Thrown by routes and the request pipeline; never carries a payload or a stack trace to the client.
 */
class ApiError extends RuntimeException {

    final int status;
    final String code;
    final String field;

    ApiError(int status, String code, String field, String message) {
        super(message, null, false, false);
        this.status = status;
        this.code = code;
        this.field = field;
    }

    static ApiError badRequest(String field, String message) {
        return new ApiError(400, "validation", field, field + ": " + message);
    }

    static ApiError notFound(String message) {
        return new ApiError(404, "not_found", null, message);
    }

    static ApiError forbidden(String code, String message) {
        return new ApiError(403, code, null, message);
    }
}
