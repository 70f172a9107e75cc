package dev.postbox.internal;

import java.net.InetAddress;
import java.util.concurrent.ThreadLocalRandom;

/** This process's host name and the default instance ids of the jobs it runs. */
public final class Hosts {

    private static volatile String name;

    private Hosts() {
    }

    /** This host's name, looked up once (a slow name service is asked one time only), or "host". */
    public static String name() {
        String n = name;
        if (n == null) {
            try {
                n = InetAddress.getLocalHost().getHostName();
            } catch (Exception e) {
                n = "host";
            }
            name = n;
        }
        return n;
    }

    /** host-pid-random: unique among the processes sharing a database; at most 100 characters (the end kept). */
    public static String instanceId() {
        String id = name() + "-" + ProcessHandle.current().pid() + "-"
                + Integer.toString(ThreadLocalRandom.current().nextInt(36 * 36 * 36), 36);
        return id.length() > 100 ? id.substring(id.length() - 100) : id;
    }
}
