extension ProviderCatalog {
    /// Every provider type that ships with the broker.
    public static let builtIn = ProviderCatalog([
        GoogleProvider.self, AppleProvider.self, KakaoProvider.self, NaverProvider.self, LineProvider.self,
        GenericOIDCProvider.self,
    ])
}
