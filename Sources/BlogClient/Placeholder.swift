/// Placeholder until the client lands.
public enum BlogClientPlaceholder {}
