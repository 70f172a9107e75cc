package dev.postbox.examples.plain;

public final class PlainJavaExample {
    public static void main(String[] args) {
    }
}
