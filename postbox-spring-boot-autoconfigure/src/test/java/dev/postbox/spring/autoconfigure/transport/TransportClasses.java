package dev.postbox.spring.autoconfigure.transport;

/** The package-private transport auto-configurations, for tests of other packages that start a transport. */
public final class TransportClasses {

    public static final Class<?> KAFKA = KafkaTransportAutoConfiguration.class;
    public static final Class<?> RABBIT = RabbitTransportAutoConfiguration.class;
    public static final Class<?> NATS = NatsTransportAutoConfiguration.class;
    public static final Class<?> HTTP = HttpTransportAutoConfiguration.class;

    private TransportClasses() {
    }
}
