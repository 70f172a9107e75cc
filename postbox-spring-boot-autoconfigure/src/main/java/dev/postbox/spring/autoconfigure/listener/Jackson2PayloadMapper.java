package dev.postbox.spring.autoconfigure.listener;

import com.fasterxml.jackson.databind.ObjectMapper;

import java.lang.reflect.Type;
import java.util.Objects;

/** Jackson 2 ({@code com.fasterxml.jackson.databind.ObjectMapper}), the Spring Boot 3 line's. */
final class Jackson2PayloadMapper implements PayloadMapper {

    private final ObjectMapper mapper;
    private final String origin;

    Jackson2PayloadMapper(ObjectMapper mapper, String origin) {
        this.mapper = Objects.requireNonNull(mapper, "mapper");
        this.origin = origin;
    }

    @Override
    public Object read(String json, Type type) throws Exception {
        return mapper.readValue(json, mapper.getTypeFactory().constructType(type));
    }

    @Override
    public String describe() {
        return "Jackson 2 ObjectMapper (" + origin + ")";
    }

    /** The application's unique ObjectMapper bean, or null when it has none (or several without a primary). */
    static PayloadMapper ofBean(org.springframework.beans.factory.ListableBeanFactory beans) {
        ObjectMapper m = beans.getBeanProvider(ObjectMapper.class).getIfUnique();
        return m == null ? null : new Jackson2PayloadMapper(m, "the application's bean");
    }

    /** Jackson's defaults with the modules on the class path, unknown properties ignored (events grow fields), when the application has no bean. */
    static PayloadMapper defaults() {
        return new Jackson2PayloadMapper(new ObjectMapper().findAndRegisterModules()
                .configure(com.fasterxml.jackson.databind.DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES, false), "Jackson's defaults");
    }
}
