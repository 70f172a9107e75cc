/**
 * The kernel every Postbox package may use: the exceptions ({@link dev.postbox.common.PostboxException} and
 * its subclasses), the defaults ({@link dev.postbox.common.PostboxDefaults}) and the retry policy of the
 * relay and the worker ({@link dev.postbox.common.RetryPolicy}). It imports no other Postbox package, so
 * that no package reaches the facade {@code dev.postbox.Postbox} or a feature through it ({@code PackageCycleTest}).
 */
package dev.postbox.common;
