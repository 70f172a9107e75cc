package dev.postbox.spring.autoconfigure.listener;

import java.lang.reflect.Type;

/** Maps an event's JSON payload into a listener parameter's declared type (the application's Jackson, 2 or 3). */
interface PayloadMapper {

    /** Reads {@code json} as {@code type}; throws what the mapper threw (the delivery then fails). */
    Object read(String json, Type type) throws Exception;

    /** Which mapper this is, for start-up logs and errors. */
    String describe();

    /** No Jackson on the class path: only {@code String} and {@code Envelope} parameters can be served. */
    PayloadMapper NONE = new PayloadMapper() {
        @Override
        public Object read(String json, Type type) {
            throw new IllegalStateException("no Jackson ObjectMapper to map the payload into " + type.getTypeName());
        }

        @Override
        public String describe() {
            return "none (neither Jackson 2 nor Jackson 3 on the class path)";
        }
    };
}
