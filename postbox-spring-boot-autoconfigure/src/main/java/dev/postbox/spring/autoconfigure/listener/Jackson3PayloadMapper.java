package dev.postbox.spring.autoconfigure.listener;

import tools.jackson.databind.ObjectMapper;

import java.lang.reflect.Type;
import java.util.Objects;

/** Jackson 3 ({@code tools.jackson.databind.ObjectMapper}), the Spring Boot 4 line's. */
final class Jackson3PayloadMapper implements PayloadMapper {

    private final ObjectMapper mapper;
    private final String origin;

    Jackson3PayloadMapper(ObjectMapper mapper, String origin) {
        this.mapper = Objects.requireNonNull(mapper, "mapper");
        this.origin = origin;
    }

    @Override
    public Object read(String json, Type type) {
        return mapper.readValue(json, mapper.getTypeFactory().constructType(type));
    }

    @Override
    public String describe() {
        return "Jackson 3 ObjectMapper (" + origin + ")";
    }

    /** The application's unique ObjectMapper bean, or null when it has none (or several without a primary). */
    static PayloadMapper ofBean(org.springframework.beans.factory.ListableBeanFactory beans) {
        ObjectMapper m = beans.getBeanProvider(ObjectMapper.class).getIfUnique();
        return m == null ? null : new Jackson3PayloadMapper(m, "the application's bean");
    }

    /** Jackson's defaults with the modules on the class path, unknown properties ignored (events grow fields), when the application has no bean. */
    static PayloadMapper defaults() {
        return new Jackson3PayloadMapper(tools.jackson.databind.json.JsonMapper.builder().findAndAddModules()
                .disable(tools.jackson.databind.DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES).build(), "Jackson's defaults");
    }
}
